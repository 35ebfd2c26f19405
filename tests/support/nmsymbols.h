// The symbols of a binary as nm lists them: the second opinion the symbolize, lookup and
// gperftools tests sample addresses and names from.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace symflame::testing {

struct NmSymbol {
    quint64 address = 0;
    quint64 size = 0; ///< 0 when nm gives none
    char type = 0; ///< nm's letter: T, t, W, w, i (code), D, B, R ...
    QByteArray name;

    /// Text, weak and indirect functions (nm's t, T, w, W, i).
    bool isCode() const { return QByteArray("tTwWi").contains(type); }
};

enum class NmTable { Static, Dynamic }; ///< .symtab, or .dynsym (nm -D)

/// The defined symbols of file's table, in nm's order (`nm -S --defined-only [-D]`); empty when
/// nm fails or the table is missing.
QList<NmSymbol> nmSymbols(const QString& file, NmTable table = NmTable::Static);

/// The code symbols with a size (functions), in nm's order.
QList<NmSymbol> nmFunctions(const QString& file, NmTable table = NmTable::Static);

} // namespace symflame::testing
