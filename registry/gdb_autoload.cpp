// Names scripts/gdb/glassbox.py in a .debug_gdb_scripts section, so gdb loads glassbox's
// pretty-printers and commands with libglassbox_core.so (where auto-loading is allowed:
// `add-auto-load-safe-path <repo>`).
#ifndef GLASSBOX_GDB_SCRIPT
#error "GLASSBOX_GDB_SCRIPT must name the gdb script (set by engine/core/CMakeLists.txt)"
#endif

// Entry kind 1: a Python script file name. The section is mergeable so every library that
// carries it names the script once.
asm(".pushsection \".debug_gdb_scripts\", \"MS\",@progbits,1\n"
    ".byte 1\n"
    ".asciz \"" GLASSBOX_GDB_SCRIPT
    "\"\n"
    ".popsection\n");
