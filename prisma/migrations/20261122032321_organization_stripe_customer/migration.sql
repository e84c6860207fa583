-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "stripe_customer_id" TEXT;
