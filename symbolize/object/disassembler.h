// Machine code to text, through LLVM's MC disassembler (the llvm-19 packages the DWARF reader
// comes from): x86-64, x86 and AArch64, AT&T or Intel syntax for x86. Each instruction with its
// bytes' size, its text as llvm-objdump prints it, and the target of a direct branch or call.
// Bytes that decode to no instruction are one "(bad)" byte, as objdump shows them, and the
// disassembly goes on after it.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace symflame::symbolize {

enum class AsmSyntax : uint8_t { Att, Intel };

struct Instruction {
    uint64_t address = 0;
    uint32_t size = 0;
    std::string text; ///< mnemonic, a space, operands ("pushq %rbp"); "(bad)" when undecodable
    bool valid = true;
    bool isCall = false;
    bool isBranch = false; ///< a jump, conditional or not (calls not included)
    bool isReturn = false;
    std::optional<uint64_t> target; ///< a direct branch's or call's destination
};

class Disassembler {
public:
    ~Disassembler();
    Disassembler(const Disassembler&) = delete;
    Disassembler& operator=(const Disassembler&) = delete;

    /// For an ELF machine (elf::EM_X86_64, EM_386, EM_AARCH64); an error for any other.
    static model::Result<std::unique_ptr<Disassembler>> create(uint16_t elfMachine, AsmSyntax syntax = AsmSyntax::Att);

    /// The instructions of bytes, the first at address.
    std::vector<Instruction> disassemble(std::span<const uint8_t> bytes, uint64_t address) const;

private:
    Disassembler();
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// Larger ranges are refused: no function is this large, a symbol that claims it is broken.
inline constexpr uint64_t kMaxDisassemblyBytes = uint64_t(64) << 20;

/// The instructions of [start, end) in elf's executable sections (virtual addresses). Errors
/// when the range is empty or too large (kMaxDisassemblyBytes), lies outside every executable
/// section of the file, or its bytes are not in the file (SHT_NOBITS: a separate debug file;
/// a section cut short).
model::Result<std::vector<Instruction>> disassembleRange(
    const ElfFile& elf, uint64_t start, uint64_t end, const Disassembler& disassembler);

} // namespace symflame::symbolize
