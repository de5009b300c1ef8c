"""Write the JSON Schema of the report (schemas/report.schema.json) from the pydantic
models, or check that the published file is current (--check).

    python scripts/make_report_schema.py [--check]

The schema is the public contract of `verifier-audit run --json`: a report file (one
verifier) or a report set (several, the side-by-side run). Bump models.SCHEMA_VERSION when
a field changes meaning or goes away; adding a field is a minor bump.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _suite_file import write_or_check  # noqa: E402

from verifier_audit.models import SCHEMA_VERSION, Report, ReportSet  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json"


def schema() -> dict:
    report, report_set = Report.model_json_schema(), ReportSet.model_json_schema()
    defs = {**report.pop("$defs", {}), **report_set.pop("$defs", {}), "Report": report}
    report_set["properties"]["reports"]["items"] = {"$ref": "#/$defs/Report"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://verifier-audit.invalid/schemas/report-{SCHEMA_VERSION}.json",
        "title": f"verifier-audit report, schema {SCHEMA_VERSION}",
        "oneOf": [{"$ref": "#/$defs/Report"}, {"$ref": "#/$defs/ReportSet"}],
        "$defs": {**defs, "ReportSet": report_set},
    }


def render() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.exit(write_or_check("JSON Schema of the report", OUT, "scripts/make_report_schema.py", render))
