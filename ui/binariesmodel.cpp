#include "ui/binariesmodel.h"

#include <QBrush>
#include <QColor>
#include <QString>

namespace symflame::ui {

BinariesModel::BinariesModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void BinariesModel::setRows(std::vector<symbolize::BinaryRow> rows, int64_t totalValue)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_total = totalValue;
    endResetModel();
}

const symbolize::BinaryRow* BinariesModel::row(int r) const
{
    return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
}

int BinariesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BinariesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString percent(int64_t v, int64_t total)
{
    if (total == 0)
        return QStringLiteral("–");
    const double p = 100.0 * double(v) / double(total);
    return QString::number(p, 'f', p < 10 ? 2 : 1) + '%';
}

} // namespace

QVariant BinariesModel::data(const QModelIndex& index, int role) const
{
    const symbolize::BinaryRow* r = row(index.row());
    if (!r || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const bool problem = symbolize::isProblem(r->state);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return QString::fromStdString(r->name);
        case Status:
            return QString::fromUtf8(symbolize::binaryStateName(r->state));
        case Self:
            return percent(r->self, m_total);
        case Total:
            return percent(r->total, m_total);
        case Locations:
            return QStringLiteral("%1 / %2").arg(r->symbolized).arg(r->locations);
        case BuildId:
            if (r->buildId.empty() && !r->htlHash.empty())
                return QStringLiteral("htlhash %1").arg(QString::fromStdString(r->htlHash));
            return r->buildId.empty() ? QStringLiteral("(none)") : QString::fromStdString(r->buildId);
        case Path:
            return QString::fromStdString(r->path);
        case Source:
            return QString::fromStdString(r->detail);
        }
        break;
    case Qt::ToolTipRole:
        return QString::fromStdString(r->detail);
    case Qt::ForegroundRole:
        if (index.column() == Status && problem)
            return QBrush(QColor(0xc6, 0x28, 0x28));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Self || index.column() == Total || index.column() == Locations)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        switch (index.column()) {
        case Self:
            return qlonglong(r->self);
        case Total:
            return qlonglong(r->total);
        case Locations:
            return r->locations ? double(r->symbolized) / double(r->locations) : 0.0;
        case Status:
            return int(r->state);
        default:
            return data(index, Qt::DisplayRole);
        }
    case ProblemRole:
        return problem;
    case RowIndexRole:
        return index.row();
    default:
        break;
    }
    return {};
}

QVariant BinariesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Binary");
    case Status:
        return tr("Status");
    case Self:
        return tr("Self");
    case Total:
        return tr("Total");
    case Locations:
        return tr("Symbolized");
    case BuildId:
        return tr("Build ID");
    case Path:
        return tr("Path");
    case Source:
        return tr("Debug info");
    }
    return {};
}

} // namespace symflame::ui
