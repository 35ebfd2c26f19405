// An ELF symbol table (.symtab or .dynsym) prepared for address -> name lookups with the rules
// llvm-symbolizer applies, so that names from the symbol table agree with it: function, object,
// no-type and ifunc symbols defined in allocated sections; several symbols at one address
// collapse to the one with the largest size; a symbol of size 0 covers everything up to the
// next symbol; a local symbol's file is the STT_FILE symbol before it.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

class SymbolTable {
public:
    enum class Kind : uint8_t { Static, Dynamic }; ///< .symtab, .dynsym

    struct Symbol {
        uint64_t address = 0;
        uint64_t size = 0;
        std::string_view name; ///< raw (mangled) name, points into the ELF file
        uint32_t localIndex = 0; ///< index in the table for local symbols (file lookup), else 0
    };

    SymbolTable() = default;

    /// Reads the table of the given kind; an empty table when the file has none. Errors when the
    /// section or its string table is malformed.
    static model::Result<SymbolTable> load(const ElfFilePtr& elf, Kind kind);

    /// The value of the first defined symbol of .symtab named name, of any type; nullopt when
    /// there is none (aliases are kept here, unlike in a loaded table).
    static std::optional<uint64_t> addressOf(const ElfFile& elf, std::string_view name);

    bool empty() const { return m_symbols.empty(); }
    size_t size() const { return m_symbols.size(); }
    Kind kind() const { return m_kind; }
    const ElfFilePtr& elf() const { return m_elf; }
    const std::vector<Symbol>& symbols() const { return m_symbols; }

    /// The symbol covering address, or null.
    const Symbol* find(uint64_t address) const;
    /// Name of the STT_FILE symbol preceding a local symbol; empty for global symbols.
    std::string_view fileOf(const Symbol& s) const;

private:
    ElfFilePtr m_elf; // keeps the names alive
    Kind m_kind = Kind::Static;
    std::vector<Symbol> m_symbols; // sorted by address, unique addresses
    std::vector<std::pair<uint32_t, std::string_view>> m_files; // (index, name) of STT_FILE symbols
};

} // namespace symflame::symbolize
