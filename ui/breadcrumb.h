// The zoom path in the toolbar: a button per ancestor of the flame graph's zoomed frame ("all"
// first, each with its node id in the "node" property) that zooms back to it, then the frame.
#pragma once

#include <QWidget>

class QHBoxLayout;

namespace symflame::ui {

class FlameGraphWidget;

class Breadcrumb : public QWidget {
    Q_OBJECT
public:
    /// Follows flame's zoom (its rootChanged signal) and jumps it back on a click.
    explicit Breadcrumb(FlameGraphWidget* flame, QWidget* parent = nullptr);

    /// Rebuilds the path for the flame graph's present zoom (empty when not zoomed).
    void rebuild();

private:
    FlameGraphWidget* m_flame;
    QHBoxLayout* m_layout = nullptr;
};

} // namespace symflame::ui
