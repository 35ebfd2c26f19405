// TopFunctionsModel: text for display, raw values for sorting, the symbol for the views.
#include "ui/topfunctionsmodel.h"

#include "model/core/frameformat.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <QColor>

namespace symflame::ui {

using namespace symflame::model;

TopFunctionsModel::TopFunctionsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void TopFunctionsModel::setEntries(std::shared_ptr<const ProfileSnapshot> snapshot, std::vector<TopEntry> entries,
    int64_t total, const std::vector<TopEntry>& base)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_entries = m_snapshot ? std::move(entries) : std::vector<TopEntry>();
    m_total = total;
    m_baseFlat.clear();
    m_baseCum.clear();
    if (m_snapshot && m_snapshot->isDiff()) {
        const size_t n = m_snapshot->symbols->size();
        m_baseFlat.assign(n, 0);
        m_baseCum.assign(n, 0);
        std::vector<uint8_t> listed(n, 0);
        for (const TopEntry& e : m_entries)
            listed[e.symbol.index()] = 1;
        for (const TopEntry& e : base) {
            m_baseFlat[e.symbol.index()] = e.flat;
            m_baseCum[e.symbol.index()] = e.cum;
            if (!listed[e.symbol.index()])
                m_entries.push_back(TopEntry { e.symbol, 0, 0 }); // only in BASE: it vanished
        }
    }
    m_sharedNames.clear();
    m_text.clear();
    if (m_snapshot) {
        QSet<QString> seen;
        m_text.resize(m_snapshot->symbols->size());
        for (const TopEntry& e : m_entries) {
            QString name = QString::fromStdString(m_snapshot->symbols->displayName(e.symbol));
            if (seen.contains(name))
                m_sharedNames.insert(name);
            seen.insert(name);
            m_text[e.symbol.index()] = std::move(name);
        }
        for (const TopEntry& e : m_entries) // with the file where another row has the same name
            if (m_sharedNames.contains(m_text[e.symbol.index()]))
                m_text[e.symbol.index()] = functionText(e.symbol);
    }
    if (m_sortColumn >= 0)
        sortEntries(m_sortColumn, m_sortOrder);
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
    const auto percent = [&](int64_t v) { return m_total == 0 ? 0.0 : 100.0 * double(v) / double(m_total); };
    if (role == SymbolRole)
        return QVariant::fromValue<uint>(e.symbol.value);
    if (role == Qt::TextAlignmentRole && index.column() != Function && index.column() != Binary)
        return QVariant::fromValue(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const std::string_view unit = m_snapshot->unit();
        switch (index.column()) {
        case Function:
            return m_text[e.symbol.index()];
        // One unit per column, the total's, as pprof's tables.
        case Self:
            return QString::fromStdString(formatValueScaled(e.flat, unit, m_total));
        case SelfPercent:
            return QString::number(percent(e.flat), 'f', 2) + QLatin1Char('%');
        case Total:
            return QString::fromStdString(formatValueScaled(e.cum, unit, m_total));
        case TotalPercent:
            return QString::number(percent(e.cum), 'f', 2) + QLatin1Char('%');
        case SelfChange:
        case TotalChange: {
            if (!hasBase())
                return {};
            const bool self = index.column() == SelfChange;
            const int64_t base = self ? m_baseFlat[e.symbol.index()] : m_baseCum[e.symbol.index()];
            const int64_t next = self ? e.flat : e.cum, delta = next - base;
            const QString value = (delta > 0 ? QStringLiteral("+") : QString())
                + QString::fromStdString(formatValueScaled(delta, unit, m_total));
            if (role == Qt::DisplayRole) // the change alone; the tooltip says how much that is
                return value;
            if (base == 0)
                return delta == 0 ? value : value + tr(" (new)");
            return QStringLiteral("%1 (%2%3%)")
                .arg(value, delta > 0 ? QStringLiteral("+") : QString())
                .arg(100.0 * double(delta) / double(base), 0, 'f', 1);
        }
        case BaseSelf:
        case BaseTotal:
            if (!hasBase())
                return {};
            return QString::fromStdString(formatValueScaled(
                index.column() == BaseSelf ? m_baseFlat[e.symbol.index()] : m_baseCum[e.symbol.index()], unit, m_total));
        case SelfRelative: {
            if (!hasBase())
                return {};
            const int64_t base = m_baseFlat[e.symbol.index()], delta = e.flat - base;
            if (base == 0)
                return delta == 0 ? QStringLiteral("0%") : tr("new");
            return (delta > 0 ? QStringLiteral("+") : QString()) + QString::number(100.0 * double(delta) / double(base), 'f', 1)
                + QLatin1Char('%');
        }
        case Binary:
            return QString::fromUtf8(binaryName(e));
        default:
            return {};
        }
    }
    if (role == Qt::ForegroundRole && hasBase()
        && (index.column() == SelfChange || index.column() == TotalChange || index.column() == SelfRelative)) {
        // Red grew, blue shrank, as the graph.
        const bool self = index.column() != TotalChange;
        const int64_t delta = (self ? e.flat - m_baseFlat[e.symbol.index()] : e.cum - m_baseCum[e.symbol.index()]);
        if (delta != 0)
            return QColor(delta > 0 ? QColor(190, 30, 30) : QColor(30, 80, 200));
        return {};
    }
    if (role == SortRole) {
        const int column = index.column();
        if (isNumberColumn(column))
            return column >= SelfChange && !hasBase() ? QVariant() : QVariant::fromValue<qlonglong>(numberOf(e, column));
        switch (column) {
        case Function:
            return QString::fromStdString(symbols.displayName(e.symbol));
        case SelfRelative:
            return hasBase() ? QVariant(relativeChange(e)) : QVariant();
        case Binary:
            return QString::fromUtf8(binaryName(e));
        default:
            return {};
        }
    }
    return {};
}

void TopFunctionsModel::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = column;
    m_sortOrder = order;
    if (m_entries.empty())
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const std::vector<uint32_t> rows = sortEntries(column, order);
    std::vector<int> rowNow(rows.size()); // by row before: its row now
    for (size_t r = 0; r < rows.size(); ++r)
        rowNow[rows[r]] = int(r);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex& i : from)
        to.append(index(rowNow[size_t(i.row())], i.column()));
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

std::vector<uint32_t> TopFunctionsModel::sortEntries(int column, Qt::SortOrder order)
{
    std::vector<uint32_t> rows(m_entries.size());
    std::iota(rows.begin(), rows.end(), 0u);
    if (!m_snapshot || m_entries.empty())
        return rows;
    const size_t n = m_entries.size();
    const SymbolTable& symbols = *m_snapshot->symbols;
    // One key per row, of the type SortRole gives; rows with equal keys keep their order (a
    // stable sort, in either direction, as QSortFilterProxyModel's).
    std::vector<int64_t> number;
    std::vector<double> ratio;
    std::vector<std::string_view> text;
    std::vector<uint32_t> nameKey;
    switch (column) {
    case Function: {
        // Equal names are equal keys: the rank of the first symbol of each name.
        std::vector<uint32_t> first(symbols.size());
        for (uint32_t r = 0; r < symbols.size(); ++r)
            first[r] = r > 0 && symbols.displayName(symbols.symbolAtRank(r)) == symbols.displayName(symbols.symbolAtRank(r - 1))
                ? first[r - 1]
                : r;
        nameKey.resize(n);
        for (size_t i = 0; i < n; ++i)
            nameKey[i] = first[symbols.nameRank(m_entries[i].symbol)];
        break;
    }
    case SelfRelative:
        if (!hasBase())
            break;
        ratio.resize(n);
        for (size_t i = 0; i < n; ++i)
            ratio[i] = relativeChange(m_entries[i]);
        break;
    case Binary:
        text.resize(n);
        for (size_t i = 0; i < n; ++i)
            text[i] = binaryName(m_entries[i]);
        break;
    default:
        if (!isNumberColumn(column) || (column >= SelfChange && !hasBase()))
            break; // no values: every row equal
        number.resize(n);
        for (size_t i = 0; i < n; ++i)
            number[i] = numberOf(m_entries[i], column);
        break;
    }
    const auto compare = [&](size_t a, size_t b) -> int { // <0, 0, >0
        if (!nameKey.empty())
            return nameKey[a] < nameKey[b] ? -1 : nameKey[a] > nameKey[b];
        if (!number.empty())
            return number[a] < number[b] ? -1 : number[a] > number[b];
        if (!ratio.empty())
            return ratio[a] < ratio[b] ? -1 : ratio[a] > ratio[b];
        if (!text.empty())
            return text[a].compare(text[b]);
        return 0;
    };
    const bool descending = order == Qt::DescendingOrder;
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
        const int c = compare(a, b);
        return descending ? c > 0 : c < 0;
    });
    std::vector<TopEntry> entries(n);
    for (size_t r = 0; r < n; ++r)
        entries[r] = m_entries[rows[r]];
    m_entries = std::move(entries);
    return rows;
}

bool TopFunctionsModel::isNumberColumn(int column)
{
    return column == Self || column == SelfPercent || column == Total || column == TotalPercent || column == SelfChange
        || column == TotalChange || column == BaseSelf || column == BaseTotal;
}

int64_t TopFunctionsModel::numberOf(const TopEntry& e, int column) const
{
    switch (column) {
    case Self:
    case SelfPercent:
        return e.flat;
    case Total:
    case TotalPercent:
        return e.cum;
    case SelfChange:
        return e.flat - m_baseFlat[e.symbol.index()];
    case TotalChange:
        return e.cum - m_baseCum[e.symbol.index()];
    case BaseSelf:
        return m_baseFlat[e.symbol.index()];
    case BaseTotal:
        return m_baseCum[e.symbol.index()];
    default:
        return 0;
    }
}

double TopFunctionsModel::relativeChange(const TopEntry& e) const
{
    const int64_t base = m_baseFlat[e.symbol.index()], delta = e.flat - base;
    // New functions first among those that grew.
    return base == 0 ? (delta == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : double(delta) / double(base);
}

std::string_view TopFunctionsModel::binaryName(const TopEntry& e) const
{
    const Symbol& sym = m_snapshot->symbols->symbol(e.symbol);
    const Profile& profile = *m_snapshot->profile;
    if (!sym.mapping.valid() || sym.mapping.index() >= profile.mappings.size())
        return {};
    return baseName(profile.str(profile.mappings[sym.mapping.index()].file));
}

void TopFunctionsProxy::sort(int column, Qt::SortOrder order)
{
    if (QAbstractItemModel* model = sourceModel())
        model->sort(column, order);
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
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && (section == SelfChange || section == TotalChange))
        return section == SelfChange ? tr("Change of self time: this profile's minus the base's")
                                     : tr("Change of total time: this profile's minus the base's");
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
    case SelfChange:
        return tr("\u0394 Self"); // compact: the table keeps room for the names on a laptop screen
    case TotalChange:
        return tr("\u0394 Total");
    case BaseSelf:
        return tr("Base Self");
    case BaseTotal:
        return tr("Base Total");
    case SelfRelative:
        return tr("\u0394 Self %");
    case TotalPercent:
        return tr("Total %");
    case Binary:
        return tr("Binary");
    default:
        return {};
    }
}

} // namespace symflame::ui
