# glassbox's gdb helpers: pretty-printers and the gb-* commands (see scripts/gdb/glassbox.py).
#   gdb -x scripts/gdb/glassbox.gdb --args .venv/bin/python examples/hello.py
# Run from the repository root (the path below is relative to it).
set breakpoint pending on
set print pretty off
source scripts/gdb/glassbox.py
