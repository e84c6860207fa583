-- Dashboard sign-in: one-time login links and staff (reviewer) sessions.
CREATE TABLE "dashboard_login_links" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "member_id" UUID,
    "staff_name" TEXT,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboard_login_links_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "staff_sessions" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "staff_sessions_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "dashboard_login_links_token_hash_key" ON "dashboard_login_links"("token_hash");
CREATE UNIQUE INDEX "staff_sessions_token_hash_key" ON "staff_sessions"("token_hash");

ALTER TABLE "dashboard_login_links" ADD CONSTRAINT "dashboard_login_links_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE;
