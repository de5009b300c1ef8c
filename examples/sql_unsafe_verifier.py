"""A SQL verifier with a common, unsafe pattern: it opens the task's database read-write and
runs the model's query there. A `DROP TABLE x; SELECT ...` candidate then changes the
database under every later call. The audit reports it as a security finding
(modified_fixture) and restores the copy; the cached fixture is never touched."""

import re

import duckdb


def read_write_executor(completion, task):
    fenced = re.findall(r"```(?:sql)?\s*(.*?)```", completion, flags=re.S | re.I)
    sql = (fenced[-1] if fenced else completion).strip()
    con = duckdb.connect(task.database)  # read-write: the hole
    try:
        got = con.execute(sql).fetchall()
        want = con.execute(task.reference).fetchall()
        return sorted(map(repr, got)) == sorted(map(repr, want))
    except Exception:
        return False
    finally:
        con.close()
