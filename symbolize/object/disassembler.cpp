#include "symbolize/object/disassembler.h"

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86Disassembler();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64Disassembler();
}

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;

struct Disassembler::Impl {
    std::unique_ptr<llvm::MCRegisterInfo> registers;
    std::unique_ptr<llvm::MCAsmInfo> asmInfo;
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
    std::unique_ptr<llvm::MCInstrInfo> instructions;
    std::unique_ptr<llvm::MCContext> context;
    std::unique_ptr<llvm::MCDisassembler> disassembler;
    std::unique_ptr<llvm::MCInstPrinter> printer;
    std::unique_ptr<llvm::MCInstrAnalysis> analysis;
    bool pcIsNext = false;
};

Disassembler::Disassembler()
    : d(std::make_unique<Impl>())
{
}

Disassembler::~Disassembler() = default;

model::Result<std::unique_ptr<Disassembler>> Disassembler::create(uint16_t elfMachine, AsmSyntax syntax)
{
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeX86TargetInfo();
        LLVMInitializeX86TargetMC();
        LLVMInitializeX86Disassembler();
        LLVMInitializeAArch64TargetInfo();
        LLVMInitializeAArch64TargetMC();
        LLVMInitializeAArch64Disassembler();
    });
    const char* name = nullptr;
    switch (elfMachine) {
    case elf::EM_X86_64:
        name = "x86_64-unknown-linux-gnu";
        break;
    case elf::EM_386:
        name = "i386-unknown-linux-gnu";
        break;
    case elf::EM_AARCH64:
        name = "aarch64-unknown-linux-gnu";
        break;
    default:
        return makeError(ErrorCode::Unsupported,
            "no disassembler for ELF machine " + std::to_string(elfMachine) + " (x86-64, x86 and AArch64 are known)");
    }
    const llvm::Triple triple(name);
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
    if (!target)
        return makeError(ErrorCode::Unsupported, "no disassembler for " + triple.str() + ": " + error);
    std::unique_ptr<Disassembler> self(new Disassembler());
    Impl& i = *self->d;
    i.registers.reset(target->createMCRegInfo(triple.str()));
    llvm::MCTargetOptions options;
    if (i.registers)
        i.asmInfo.reset(target->createMCAsmInfo(*i.registers, triple.str(), options));
    i.subtarget.reset(target->createMCSubtargetInfo(triple.str(), "", ""));
    i.instructions.reset(target->createMCInstrInfo());
    if (!i.registers || !i.asmInfo || !i.subtarget || !i.instructions)
        return makeError(ErrorCode::Unsupported, "LLVM has no machine description for " + triple.str());
    i.context = std::make_unique<llvm::MCContext>(triple, i.asmInfo.get(), i.registers.get(), i.subtarget.get());
    i.disassembler.reset(target->createMCDisassembler(*i.subtarget, *i.context));
    // x86: printer variant 0 is AT&T, 1 Intel; other targets have one.
    const unsigned variant = elfMachine == elf::EM_AARCH64 ? i.asmInfo->getAssemblerDialect()
        : syntax == AsmSyntax::Intel                        ? 1u
                                                            : 0u;
    i.printer.reset(target->createMCInstPrinter(triple, variant, *i.asmInfo, *i.instructions, *i.registers));
    i.analysis.reset(target->createMCInstrAnalysis(i.instructions.get()));
    if (!i.disassembler || !i.printer)
        return makeError(ErrorCode::Unsupported, "LLVM has no disassembler for " + triple.str());
    // As llvm-objdump prints: immediates in hex, branch targets as addresses.
    i.printer->setPrintImmHex(true);
    i.pcIsNext = elfMachine != elf::EM_AARCH64;
    i.printer->setPrintBranchImmAsAddress(true);
    return self;
}

std::vector<Instruction> Disassembler::disassemble(std::span<const uint8_t> bytes, uint64_t address) const
{
    std::vector<Instruction> out;
    const llvm::ArrayRef<uint8_t> all(bytes.data(), bytes.size());
    std::string text;
    for (uint64_t offset = 0; offset < bytes.size();) {
        Instruction ins;
        ins.address = address + offset;
        llvm::MCInst inst;
        uint64_t size = 0;
        const auto status
            = d->disassembler->getInstruction(inst, size, all.slice(offset), ins.address, llvm::nulls());
        if (status != llvm::MCDisassembler::Success || size == 0) {
            ins.size = 1;
            ins.valid = false;
            ins.text = "(bad)";
            out.push_back(std::move(ins));
            ++offset;
            continue;
        }
        ins.size = uint32_t(size);
        text.clear();
        llvm::raw_string_ostream os(text);
        // x86 branch immediates count from the next instruction, and the printer adds them to
        // the address it is given; AArch64's count from the instruction itself.
        d->printer->printInst(&inst, ins.address + (d->pcIsNext ? size : 0), "", *d->subtarget, os);
        os.flush();
        // "\tpushq\t%rbp" -> "pushq %rbp": one space between the parts, none around them.
        std::string clean;
        clean.reserve(text.size());
        for (char c : text) {
            if (c == '\t' || c == ' ' || c == '\n') {
                if (!clean.empty() && clean.back() != ' ')
                    clean.push_back(' ');
            } else {
                clean.push_back(c);
            }
        }
        while (!clean.empty() && clean.back() == ' ')
            clean.pop_back();
        ins.text = std::move(clean);
        if (d->analysis) {
            const llvm::MCInstrDesc& desc = d->instructions->get(inst.getOpcode());
            ins.isCall = desc.isCall();
            ins.isReturn = desc.isReturn();
            ins.isBranch = desc.isBranch();
            uint64_t target = 0;
            if ((ins.isCall || ins.isBranch) && d->analysis->evaluateBranch(inst, ins.address, size, target))
                ins.target = target;
        }
        out.push_back(std::move(ins));
        offset += size;
    }
    return out;
}

model::Result<std::vector<Instruction>> disassembleRange(
    const ElfFile& elf, uint64_t start, uint64_t end, const Disassembler& disassembler)
{
    if (end <= start)
        return makeError(ErrorCode::InvalidInput, "nothing to disassemble: the range is empty");
    if (end - start > kMaxDisassemblyBytes)
        return makeError(ErrorCode::InvalidInput,
            "a function of " + std::to_string(end - start) + " bytes is larger than symflame disassembles ("
                + std::to_string(kMaxDisassemblyBytes >> 20) + " MiB): its symbol is probably broken");
    for (const ElfSection& s : elf.sections()) {
        if (!(s.flags & elf::SHF_EXECINSTR) || !(s.flags & elf::SHF_ALLOC) || start < s.addr || start - s.addr >= s.size)
            continue;
        if (end - s.addr > s.size)
            return makeError(ErrorCode::InvalidInput,
                "the range ends past its section " + std::string(s.name) + " (a symbol larger than its section)");
        if (s.type == elf::SHT_NOBITS)
            return makeError(ErrorCode::InvalidInput,
                "section " + std::string(s.name) + " of " + elf.path() + " has no bytes in the file (a debug file?)");
        const std::span<const uint8_t> data = elf.sectionData(s);
        if (data.size() < s.size)
            return makeError(ErrorCode::InvalidInput, "section " + std::string(s.name) + " of " + elf.path() + " is truncated");
        return disassembler.disassemble(data.subspan(start - s.addr, end - start), start);
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(start));
    return makeError(ErrorCode::InvalidInput, std::string("address ") + buf + " is in no executable section of " + elf.path());
}

} // namespace symflame::symbolize
