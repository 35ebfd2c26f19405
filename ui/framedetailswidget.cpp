// FrameDetailsWidget: an HTML table built from the symbol's exemplar location.
#include "ui/framedetailswidget.h"

#include "model/core/frameformat.h"
#include "symbolize/pass/symbolizationpass.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace symflame::ui {

using namespace symflame::model;

namespace {

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style='padding-right:8px'><b>%1</b></td><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
}

QString hex(uint64_t v)
{
    return QStringLiteral("0x") + QString::number(qulonglong(v), 16);
}

} // namespace

FrameDetailsWidget::FrameDetailsWidget(QWidget* parent)
    : QWidget(parent)
{
    m_text = new QTextBrowser;
    m_text->setOpenLinks(false);
    m_copyBuildId = new QPushButton(tr("Copy Build ID"));
    m_copyBuildId->setEnabled(false);
    connect(m_copyBuildId, &QPushButton::clicked, this, [this] {
        if (!m_buildId.isEmpty())
            QApplication::clipboard()->setText(m_buildId);
    });
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_copyBuildId);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_text);
    layout->addLayout(buttons);
    setFrame(nullptr, {});
}

QString FrameDetailsWidget::text() const
{
    return m_text->toPlainText();
}

void FrameDetailsWidget::setFrame(
    std::shared_ptr<const ProfileSnapshot> snapshot, NodeId node, const QMap<int, QString>& debugSources,
    const symbolize::SourceMapReport* sourceMaps)
{
    m_buildId.clear();
    m_copyBuildId->setEnabled(false);
    if (!snapshot || !snapshot->tree || !node.valid() || node.index() >= snapshot->tree->size()
        || node == snapshot->tree->root()) {
        m_text->setHtml(tr("<i>Click a frame to see its details.</i>"));
        return;
    }
    const Profile& profile = *snapshot->profile;
    const SymbolTable& symbols = *snapshot->symbols;
    const CallTreeNode& n = snapshot->tree->node(node);
    const Symbol& sym = symbols.symbol(n.symbol);
    const std::string_view unit = snapshot->unit();
    const int64_t all = snapshot->tree->totalValue();
    const auto pct = [&](int64_t v) {
        return QString::number(all == 0 ? 0.0 : 100.0 * double(v) / double(all), 'f', 2) + QLatin1Char('%');
    };

    QString html = QStringLiteral("<h3>%1</h3><table>").arg(QString::fromStdString(symbols.displayName(n.symbol)).toHtmlEscaped());
    html += row(tr("Total"), QString::fromStdString(formatValue(n.total, unit)) + QStringLiteral(" (") + pct(n.total) + QLatin1Char(')'));
    html += row(tr("Self"), QString::fromStdString(formatValue(n.self, unit)) + QStringLiteral(" (") + pct(n.self) + QLatin1Char(')'));
    const Location* loc = sym.exemplar.index() < profile.locations.size() ? &profile.locations[sym.exemplar.index()] : nullptr;
    if (loc) {
        const auto lines = profile.linesOf(*loc);
        if (sym.symbolized && sym.lineIndex < lines.size()) {
            const Line& line = lines[sym.lineIndex];
            const Function& f = profile.functions[line.function.index()];
            // A source-mapped frame keeps its generated function and position in systemName.
            if (!f.systemName.empty() && f.systemName != f.name)
                html += row(loc->status == FrameStatus::SourceMapped ? tr("Generated") : tr("System name"),
                    QString::fromUtf8(profile.str(f.systemName)));
            if (!f.file.empty()) {
                QString where = QString::fromUtf8(profile.str(f.file));
                if (line.line > 0)
                    where += QLatin1Char(':') + QString::number(line.line);
                if (line.column > 0)
                    where += QLatin1Char(':') + QString::number(line.column);
                html += row(tr("Source"), where);
            }
            if (sym.lineIndex + 1 < lines.size())
                html += row(tr("Inlined"), tr("yes, into %1")
                                               .arg(QString::fromUtf8(profile.str(
                                                   profile.functions[lines[sym.lineIndex + 1].function.index()].name))));
        }
        if (lines.size() > 1) {
            QStringList chain;
            for (const Line& line : lines) {
                const Function& f = profile.functions[line.function.index()];
                QString entry = QString::fromUtf8(profile.str(f.name.empty() ? f.systemName : f.name));
                if (line.line > 0)
                    entry += QLatin1Char(':') + QString::number(line.line);
                chain << entry;
            }
            html += row(tr("Inline chain"), chain.join(QStringLiteral(" \u2192 ")));
        }
        if (loc->kind != FrameKind::JavaScript || loc->address != 0)
            html += row(tr("Address"), hex(loc->address));
        html += row(tr("Status"), QString::fromUtf8(frameStatusName(loc->status)));
        if (const symbolize::ScriptReport* script = sourceMaps ? sourceMaps->scriptOf(sym.exemplar.index()) : nullptr) {
            QString text;
            if (!script->mapped)
                text = tr("no source map: %1").arg(QString::fromStdString(script->reason));
            else if (loc->status == FrameStatus::SourceMapped)
                text = QString::fromStdString(script->mapPath);
            else
                text = tr("%1 maps nothing at this generated position").arg(QString::fromStdString(script->mapPath));
            html += row(tr("Source map"), text);
            if (!script->mapped && !script->tried.empty()) {
                QStringList tried;
                for (const std::string& t : script->tried)
                    tried << QString::fromStdString(t);
                html += row(tr("Tried"), tried.join(QStringLiteral("\n")));
            }
        }
        if (loc->kind != FrameKind::Unknown)
            html += row(tr("Kind"), QString::fromUtf8(frameKindName(loc->kind)));
    }
    if (sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()) {
        const Mapping& m = profile.mappings[sym.mapping.index()];
        html += row(tr("Binary"), QString::fromUtf8(profile.str(m.file)));
        if (loc && loc->address >= m.start)
            html += row(tr("File offset"), hex(loc->address - m.start + m.offset));
        m_buildId = QString::fromUtf8(profile.str(m.buildId));
        html += row(tr("Build ID"), m_buildId.isEmpty() ? tr("(none)") : m_buildId);
        const auto source = debugSources.find(int(sym.mapping.index()));
        // Before a pass has reported on the binary: what the producer wrote.
        QString recorded = tr("not symbolized yet");
        if (loc && loc->status == FrameStatus::Symbolized) {
            const auto lines = profile.linesOf(*loc);
            recorded = QString::fromStdString(symbolize::producerSymbolizedSummary(
                std::any_of(lines.begin(), lines.end(), [](const Line& l) { return l.line > 0; })));
        }
        html += row(tr("Debug info"), source != debugSources.end() ? *source : recorded);
    }
    html += QStringLiteral("</table>");
    m_text->setHtml(html);
    m_copyBuildId->setEnabled(!m_buildId.isEmpty());
}

} // namespace symflame::ui
