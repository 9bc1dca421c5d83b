#include <capstone/capstone.h>

#include "introspect/registry/block_code.h"

namespace glassbox::introspect {

bool block_code_available() { return true; }

std::vector<uint64_t> rip_relative_loads(const uint8_t* code, std::size_t size, uint64_t address) {
  std::vector<uint64_t> out;
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) return out;
  cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  cs_option(handle, CS_OPT_SKIPDATA, CS_OPT_ON);  // go on past bytes that do not decode
  cs_insn* insn = cs_malloc(handle);
  while (size > 0 && cs_disasm_iter(handle, &code, &size, &address, insn)) {
    if (insn->id != X86_INS_LEA || !insn->detail) continue;
    const cs_x86& x86 = insn->detail->x86;
    for (uint8_t i = 0; i < x86.op_count; ++i) {
      const cs_x86_op& op = x86.operands[i];
      if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP && op.mem.index == X86_REG_INVALID)
        out.push_back(insn->address + insn->size + static_cast<int64_t>(op.mem.disp));
    }
  }
  cs_free(insn, 1);
  cs_close(&handle);
  return out;
}

}  // namespace glassbox::introspect
