#include "nmsymbols.h"

#include "processhelpers.h"

namespace symflame::testing {

QList<NmSymbol> nmSymbols(const QString& file, NmTable table)
{
    QStringList args { "-S", "--defined-only" };
    if (table == NmTable::Dynamic)
        args << "-D";
    const QByteArray out = runForOutput(QStringLiteral(SYMFLAME_NM), args << file);
    QList<NmSymbol> symbols;
    for (const QByteArray& line : out.split('\n')) {
        // "address size type name", or "address type name" for a symbol without a size.
        const QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() != 3 && f.size() != 4)
            continue;
        NmSymbol s;
        bool ok = false;
        s.address = f[0].toULongLong(&ok, 16);
        if (!ok)
            continue;
        if (f.size() == 4) {
            s.size = f[1].toULongLong(&ok, 16);
            if (!ok)
                continue;
        }
        const QByteArray& type = f[f.size() - 2];
        if (type.size() != 1)
            continue;
        s.type = type[0];
        s.name = f.last();
        symbols << s;
    }
    return symbols;
}

QList<NmSymbol> nmFunctions(const QString& file, NmTable table)
{
    QList<NmSymbol> functions;
    for (const NmSymbol& s : nmSymbols(file, table))
        if (s.isCode() && s.size > 0)
            functions << s;
    return functions;
}

} // namespace symflame::testing
