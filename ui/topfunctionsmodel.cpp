// TopFunctionsModel: text for display, raw values for sorting, the symbol for the views.
#include "ui/topfunctionsmodel.h"

#include "model/core/frameformat.h"

namespace symflame::ui {

using namespace symflame::model;

TopFunctionsModel::TopFunctionsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void TopFunctionsModel::setEntries(
    std::shared_ptr<const ProfileSnapshot> snapshot, std::vector<TopEntry> entries, int64_t total)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_entries = m_snapshot ? std::move(entries) : std::vector<TopEntry>();
    m_total = total;
    m_sharedNames.clear();
    if (m_snapshot) {
        QSet<QString> seen;
        for (const TopEntry& e : m_entries) {
            const QString name = QString::fromStdString(m_snapshot->symbols->displayName(e.symbol));
            if (seen.contains(name))
                m_sharedNames.insert(name);
            seen.insert(name);
        }
    }
    endResetModel();
}

int TopFunctionsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int TopFunctionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopFunctionsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const TopEntry& e = m_entries[static_cast<size_t>(index.row())];
    const SymbolTable& symbols = *m_snapshot->symbols;
    const Profile& profile = *m_snapshot->profile;
    const auto percent = [&](int64_t v) { return m_total == 0 ? 0.0 : 100.0 * double(v) / double(m_total); };
    const auto binary = [&]() -> QString {
        const Symbol& sym = symbols.symbol(e.symbol);
        if (!sym.mapping.valid() || sym.mapping.index() >= profile.mappings.size())
            return {};
        return QString::fromUtf8(baseName(profile.str(profile.mappings[sym.mapping.index()].file)));
    };
    if (role == SymbolRole)
        return QVariant::fromValue<uint>(e.symbol.value);
    if (role == Qt::TextAlignmentRole && index.column() != Function && index.column() != Binary)
        return QVariant::fromValue(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const std::string_view unit = m_snapshot->unit();
        switch (index.column()) {
        case Function:
            return functionText(e.symbol);
        // One unit per column, the total's, as pprof's tables.
        case Self:
            return QString::fromStdString(formatValueScaled(e.flat, unit, m_total));
        case SelfPercent:
            return QString::number(percent(e.flat), 'f', 2) + QLatin1Char('%');
        case Total:
            return QString::fromStdString(formatValueScaled(e.cum, unit, m_total));
        case TotalPercent:
            return QString::number(percent(e.cum), 'f', 2) + QLatin1Char('%');
        case Binary:
            return binary();
        default:
            return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Function:
            return QString::fromStdString(symbols.displayName(e.symbol));
        case Self:
        case SelfPercent:
            return QVariant::fromValue<qlonglong>(e.flat);
        case Total:
        case TotalPercent:
            return QVariant::fromValue<qlonglong>(e.cum);
        case Binary:
            return binary();
        default:
            return {};
        }
    }
    return {};
}

QString TopFunctionsModel::functionText(SymbolId symbol) const
{
    const SymbolTable& symbols = *m_snapshot->symbols;
    QString name = QString::fromStdString(symbols.displayName(symbol));
    // Functions that share a name (Node's "(anonymous)", static helpers in several files) are
    // told apart by where they are.
    if (m_sharedNames.contains(name)) {
        const Symbol& sym = symbols.symbol(symbol);
        const Profile& profile = *m_snapshot->profile;
        int64_t line = 0;
        if (sym.exemplar.valid() && sym.exemplar.index() < profile.locations.size()) {
            const auto lines = profile.linesOf(profile.locations[sym.exemplar.index()]);
            if (sym.lineIndex < lines.size() && lines[sym.lineIndex].function.valid())
                line = profile.functions[lines[sym.lineIndex].function.index()].startLine;
        }
        if (!sym.file.empty())
            name += QStringLiteral(" (%1%2)")
                        .arg(QString::fromUtf8(baseName(profile.str(sym.file))),
                            line > 0 ? QStringLiteral(":%1").arg(line) : QString());
    }
    return name;
}

QVariant TopFunctionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // Numbers sort largest first on the first click.
    if (orientation == Qt::Horizontal && role == Qt::InitialSortOrderRole)
        return int(section == Function || section == Binary ? Qt::AscendingOrder : Qt::DescendingOrder);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Function:
        return tr("Function");
    case Self:
        return tr("Self");
    case SelfPercent:
        return tr("Self %");
    case Total:
        return tr("Total");
    case TotalPercent:
        return tr("Total %");
    case Binary:
        return tr("Binary");
    default:
        return {};
    }
}

} // namespace symflame::ui
