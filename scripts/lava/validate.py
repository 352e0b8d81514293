#!/usr/bin/python3
"""validate.py JOB.yaml... - lava-dispatcher's job schema check, without a
server: lava_common.schemas.validate() (Debian 12 package lava-common), in
strict mode, as the LAVA server runs it on submission.  Prints one line per
job; exit 1 if any is invalid, 2 if lava-common is missing."""
import sys

try:
    import yaml
    from lava_common.schemas import validate
    from voluptuous import Invalid
except ImportError as e:
    print(f"validate.py: error: {e} (apt-get install lava-common)", file=sys.stderr)
    sys.exit(2)

bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            validate(yaml.safe_load(f), strict=True)
        print(f"{path}: valid")
    except (Invalid, yaml.YAMLError, OSError) as e:
        print(f"{path}: invalid: {e}")
        bad = 1
sys.exit(bad)
