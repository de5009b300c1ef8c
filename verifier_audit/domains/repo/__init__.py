"""Repository patches (issue 36): a task is a small repository, an issue, a gold patch and
the tests that decide it. ``patches`` applies unified diffs in pure Python."""
