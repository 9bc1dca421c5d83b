#!/usr/bin/env python3
"""Runs the operator code generator (see codegen/README.md): python3 codegen/generate.py --help"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

from glassbox_codegen.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
