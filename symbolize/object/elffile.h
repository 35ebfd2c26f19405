// A bounds-checked reader of ELF files (32 and 64 bit, either byte order) over a mapped file:
// the file header, program headers, section headers and names, notes (GNU and Go build IDs),
// .gnu_debuglink, .gnu_debugaltlink and .debug_sup, and which debug-relevant sections exist and how they
// are compressed. Every offset and count read from the file is checked against its size: a
// malformed file gives an error value, never a crash.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/mappedfile.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

/// ELF constants used by symbolize/ (values from the ELF specification).
namespace elf {
inline constexpr uint16_t ET_NONE = 0, ET_REL = 1, ET_EXEC = 2, ET_DYN = 3, ET_CORE = 4;
inline constexpr uint32_t PT_LOAD = 1, PT_NOTE = 4;
inline constexpr uint32_t PF_X = 1, PF_W = 2, PF_R = 4;
inline constexpr uint32_t SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4, SHT_NOTE = 7,
                          SHT_NOBITS = 8, SHT_REL = 9, SHT_DYNSYM = 11, SHT_CREL = 0x40000014;
inline constexpr uint64_t SHF_ALLOC = 0x2, SHF_EXECINSTR = 0x4, SHF_COMPRESSED = 0x800;
inline constexpr uint16_t SHN_UNDEF = 0, SHN_LORESERVE = 0xff00, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2,
                          SHN_XINDEX = 0xffff;
inline constexpr uint16_t PN_XNUM = 0xffff;
inline constexpr uint8_t STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3, STT_FILE = 4,
                         STT_GNU_IFUNC = 10;
inline constexpr uint8_t STB_LOCAL = 0;
inline constexpr uint32_t NT_GNU_BUILD_ID = 3, NT_GO_BUILD_ID = 4;
inline constexpr uint32_t ELFCOMPRESS_ZLIB = 1, ELFCOMPRESS_ZSTD = 2;
inline constexpr uint16_t EM_386 = 3, EM_MIPS = 8, EM_PPC64 = 21, EM_ARM = 40, EM_X86_64 = 62, EM_AARCH64 = 183, EM_RISCV = 243;
} // namespace elf

enum class ElfType : uint16_t {
    None = elf::ET_NONE,
    Relocatable = elf::ET_REL, ///< .o, Linux kernel modules (.ko)
    Executable = elf::ET_EXEC, ///< non-PIE executable
    Shared = elf::ET_DYN, ///< PIE executable or shared library
    Core = elf::ET_CORE,
};
/// "EXEC", "DYN", "REL", "CORE", "NONE" or "0x.." for other values.
std::string elfTypeName(ElfType t);

struct ElfSegment {
    uint32_t type = 0;
    uint32_t flags = 0;
    uint64_t offset = 0;
    uint64_t vaddr = 0;
    uint64_t filesz = 0;
    uint64_t memsz = 0;
    uint64_t align = 0;
};

struct ElfSection {
    uint32_t index = 0;
    std::string_view name; ///< points into the mapped file
    uint32_t type = 0;
    uint64_t flags = 0;
    uint64_t addr = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t link = 0;
    uint32_t info = 0;
    uint64_t addralign = 0;
    uint64_t entsize = 0;

    /// True when the section occupies bytes in the file (not SHT_NOBITS, not empty).
    bool hasData() const { return type != elf::SHT_NOBITS && type != elf::SHT_NULL && size > 0; }
};

enum class SectionCompression : uint8_t {
    None,
    Zlib, ///< SHF_COMPRESSED, ELFCOMPRESS_ZLIB
    Zstd, ///< SHF_COMPRESSED, ELFCOMPRESS_ZSTD
    GnuZdebug, ///< legacy .zdebug_* ("ZLIB" + 8-byte big-endian size + zlib stream)
    Unknown, ///< SHF_COMPRESSED with another type
};
const char* sectionCompressionName(SectionCompression c);

struct DebugLink {
    std::string name; ///< basename of the separate debug file
    uint32_t crc = 0; ///< CRC-32 of the whole debug file
};

/// The supplementary (dwz) file a debug file's DWARF refers into: .gnu_debugaltlink (GNU), or
/// DWARF 5's .debug_sup with is_supplementary 0.
struct DebugAltLink {
    std::string path; ///< supplementary file, as recorded (may be relative to the debug file's dir)
    std::string buildId; ///< its build ID (.gnu_debugaltlink) or .debug_sup checksum, lower-case hex
    bool debugSup = false; ///< from .debug_sup
};

struct ElfNote {
    std::string_view name; ///< without the terminating NUL
    uint32_t type = 0;
    std::span<const uint8_t> desc;
};

/// What the file holds that matters for symbolization.
struct ElfContents {
    bool debugInfo = false; ///< .debug_info (or .zdebug_info) with data
    bool debugLine = false;
    bool symtab = false; ///< .symtab with at least one symbol besides the null one
    bool dynsym = false;
    bool gnuDebugdata = false; ///< MiniDebugInfo
    bool gopclntab = false;
    bool debugOnly = false; ///< code sections are SHT_NOBITS: a separate debug file (objcopy --only-keep-debug)
    /// Compression of the first compressed debug section; None when all are stored plain.
    SectionCompression debugCompression = SectionCompression::None;

    /// DWARF that LLVM 19 can read: .debug_info present, not in legacy .zdebug form (LLVM 19
    /// dropped it) nor compressed with an unknown algorithm.
    bool readableDwarf() const
    {
        return debugInfo && debugCompression != SectionCompression::GnuZdebug
            && debugCompression != SectionCompression::Unknown;
    }
};

class ElfFile;
using ElfFilePtr = std::shared_ptr<const ElfFile>;

class ElfFile {
public:
    /// Maps and parses the file at path.
    static model::Result<ElfFilePtr> open(const std::string& path);
    /// Parses a mapped (or in-memory) file.
    static model::Result<ElfFilePtr> parse(MappedFilePtr file);
    /// True when bytes start with the ELF magic.
    static bool hasElfMagic(std::span<const uint8_t> bytes);

    const std::string& path() const { return m_file->path(); }
    const MappedFilePtr& file() const { return m_file; }
    std::span<const uint8_t> bytes() const { return m_file->bytes(); }

    bool is64() const { return m_is64; }
    bool isLittleEndian() const { return m_little; }
    ElfType type() const { return m_type; }
    uint16_t machine() const { return m_machine; }
    uint64_t entry() const { return m_entry; }

    const std::vector<ElfSegment>& segments() const { return m_segments; }
    const std::vector<ElfSection>& sections() const { return m_sections; }
    /// The first section named name, or null.
    const ElfSection* findSection(std::string_view name) const;
    /// The section's bytes in the file; empty for SHT_NOBITS (bounds were checked by parse()).
    std::span<const uint8_t> sectionData(const ElfSection& s) const;
    std::span<const uint8_t> segmentData(const ElfSegment& s) const;

    /// GNU build ID (NT_GNU_BUILD_ID), lower-case hex; empty when there is none.
    const std::string& buildId() const { return m_buildId; }
    /// Go build ID (the "Go" note of type 4, as stored: "actionID/contentID"); empty when none.
    const std::string& goBuildId() const { return m_goBuildId; }
    const std::optional<DebugLink>& debugLink() const { return m_debugLink; }
    const std::optional<DebugAltLink>& debugAltLink() const { return m_debugAltLink; }
    /// A DWARF 5 supplementary file's own checksum (.debug_sup with is_supplementary 1),
    /// lower-case hex; empty otherwise.
    const std::string& supplementaryChecksum() const { return m_supplementaryChecksum; }
    const ElfContents& contents() const { return m_contents; }

    /// Calls fn for every note in SHT_NOTE sections, or, when the file has none (no section
    /// headers), in PT_NOTE segments. Stops early when fn returns false.
    void forEachNote(const std::function<bool(const ElfNote&)>& fn) const;

    // Readers in the file's byte order; p must have the bytes (callers check bounds).
    uint16_t read16(const uint8_t* p) const;
    uint32_t read32(const uint8_t* p) const;
    uint64_t read64(const uint8_t* p) const;
    uint64_t readWord(const uint8_t* p) const { return m_is64 ? read64(p) : read32(p); }

private:
    explicit ElfFile(MappedFilePtr file)
        : m_file(std::move(file))
    {
    }
    model::Status parseImpl();
    model::Status parseSections(uint64_t shoff, uint32_t shnum, uint32_t shstrndx);
    void parseNotes();
    void parseLinks();
    void classify();

    MappedFilePtr m_file;
    bool m_is64 = false;
    bool m_little = true;
    ElfType m_type = ElfType::None;
    uint16_t m_machine = 0;
    uint64_t m_entry = 0;
    std::vector<ElfSegment> m_segments;
    std::vector<ElfSection> m_sections;
    std::string m_buildId;
    std::string m_goBuildId;
    std::optional<DebugLink> m_debugLink;
    std::optional<DebugAltLink> m_debugAltLink;
    std::string m_supplementaryChecksum;
    ElfContents m_contents;
};

/// Lower-case hex of bytes.
std::string toHex(std::span<const uint8_t> bytes);
/// A build ID as given by a producer, made comparable: hex is lower-cased; anything else (a Go
/// build ID) is kept as is.
std::string normalizeBuildId(std::string_view id);

/// Why the relocations of a relocatable object (ET_REL: a .o, a kernel module) cannot be applied
/// to its DWARF, or empty when they can (and for every other type, whose relocations DWARF readers
/// leave alone). LLVM trusts these tables while it relocates and stops the process on a bad one,
/// so a file is checked here first: each SHT_REL/SHT_RELA section needs the entry size, alignment
/// and symbol table link of its kind, and every symbol it names must be in that table.
std::string relocationProblem(const ElfFile& elf);

/// The file bytes at virtual address address, up to the end of the PT_LOAD segment's file data
/// holding it (or of the allocated section, when there are no program headers); empty when no
/// loaded data is there.
std::span<const uint8_t> elfBytesAt(const ElfFile& elf, uint64_t address);

} // namespace symflame::symbolize
