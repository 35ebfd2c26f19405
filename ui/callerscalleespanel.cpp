#include "ui/callerscalleespanel.h"

#include "ui/flamegraphwidget.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

#include <utility>

namespace symflame::ui {

using namespace symflame::model;

CallersCalleesPanel::CallersCalleesPanel(QWidget* parent)
    : QWidget(parent)
{
    m_callers = new FlameGraphWidget;
    m_callers->setPlaceholderText(tr("Select a function to see its callers"));
    m_callees = new FlameGraphWidget;
    m_callees->setOrientation(FlameGraphPainter::Orientation::Icicle);
    m_callees->setPlaceholderText(tr("and its callees"));
    m_callers->setShowAncestors(false);
    m_callees->setShowAncestors(false);
    const auto scrolled = [](FlameGraphWidget* w) {
        auto* area = new QScrollArea;
        area->setWidget(w);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // Small when the bottom strip is: the panel gets its room when brought to the front.
        area->setMinimumHeight(area->fontMetrics().height() * 2);
        return area;
    };
    auto* callersArea = scrolled(m_callers);
    QScrollBar* callersBar = callersArea->verticalScrollBar();
    connect(
        callersBar, &QScrollBar::rangeChanged, callersBar, [callersBar](int, int max) { callersBar->setValue(max); });
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(callersArea);
    splitter->addWidget(scrolled(m_callees));
    m_label = new QLabel(tr("No function selected"));
    m_label->setTextFormat(Qt::PlainText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_label);
    layout->addWidget(splitter, 1);
}

void CallersCalleesPanel::showFunction(const std::shared_ptr<const ProfileSnapshot>& snapshot, SymbolId function)
{
    m_jobs.cancel();
    if (!snapshot || !function.valid() || function.index() >= snapshot->symbols->size()) {
        m_callers->setSnapshot(nullptr);
        m_callees->setSnapshot(nullptr);
        m_label->setText(tr("No function selected"));
        return;
    }
    m_label->setText(tr("Callers (above) and callees (below) of %1")
                         .arg(QString::fromStdString(snapshot->symbols->displayName(function))));
    using Pair = std::pair<std::shared_ptr<const ProfileSnapshot>, std::shared_ptr<const ProfileSnapshot>>;
    m_jobs.run(
        [snapshot, function] {
            auto callers = withSandwich(*snapshot, function, StackFilter::Sandwich::Callers);
            auto callees = withSandwich(*snapshot, function, StackFilter::Sandwich::Callees);
            return Pair(callers ? callers.value() : nullptr, callees ? callees.value() : nullptr);
        },
        [this](const Pair& halves) {
            // Each half starts at the function, full width: the "all" row above it says nothing.
            for (auto [graph, half] : { std::pair(m_callers, halves.first), std::pair(m_callees, halves.second) }) {
                graph->setSnapshot(half);
                if (half && half->tree && half->tree->children(half->tree->root()).size() == 1)
                    graph->jumpTo(half->tree->children(half->tree->root())[0]);
            }
        });
}

} // namespace symflame::ui
