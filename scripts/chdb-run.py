#!/usr/bin/env python3
"""Runs ClickHouse SQL on chdb (the current ClickHouse engine, in-process): a test tool.

Used by test/clickhouse-current.test.ts to run the SQL our builders write on a
current ClickHouse release as well as on the dev/CI server (18.16). One chdb
Session for the whole run (a fresh temporary directory, so MergeTree tables,
materialized views and system.parts behave as on a server). Line protocol, JSON
one object a line:
  stdout, first: {"version": "<version()>"}
  stdin:  {"sql": "...", "format": "JSONEachRow"}   (format default TabSeparated;
          an INSERT carries its rows after `FORMAT JSONEachRow` and a newline)
  stdout: {"ok": true, "output": "..."} or {"ok": false, "error": "..."}
  stdin:  {"settings": {"name": value, ...}}          applied with SET; answers {"ok": true}
A failing statement does not end the run; end of input does.
Exits 2 with a message on stderr when chdb is not installed (scripts/bootstrap.sh
installs it: python3 -m pip install chdb).
"""
import json
import os
import shutil
import sys
import tempfile


def sql_literal(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> int:
    os.environ.setdefault("TZ", "UTC")
    try:
        from chdb import session as chdb_session
    except ImportError as err:
        print(f"chdb is not installed ({err}): run `python3 -m pip install chdb` (scripts/bootstrap.sh does)", file=sys.stderr)
        return 2
    path = tempfile.mkdtemp(prefix="chdb-run-")
    try:
        sess = chdb_session.Session(path)
        try:
            answer({"version": str(sess.query("SELECT version()", "TabSeparated")).strip()})
            for line in sys.stdin:
                if not line.strip():
                    continue
                request = json.loads(line)
                try:
                    if "settings" in request:
                        for name, value in request["settings"].items():
                            sess.query(f"SET {name} = {sql_literal(value)}")
                        answer({"ok": True})
                        continue
                    out = sess.query(request["sql"], request.get("format") or "TabSeparated")
                    answer({"ok": True, "output": out.bytes().decode("utf-8") if out is not None else ""})
                except Exception as err:  # noqa: BLE001 - every failure is reported, the run goes on
                    answer({"ok": False, "error": str(err)})
        finally:
            sess.close()
    finally:
        shutil.rmtree(path, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
