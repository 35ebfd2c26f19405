// The binaries panel of the missing-debuginfo triage: the table of BinariesModel (problems
// first, an "only problems" filter, sortable), the selected binary's details (build ID, status
// and why, every file tried, what debuginfod servers said), and the fixes: locate the binary or
// its debug file (its build ID is checked before anything uses it), add a search directory,
// fetch from debuginfod, copy the build ID or the upload command, show the binary's frames in
// the flame graph. The panel only checks and asks; the main window re-symbolizes.
#pragma once

#include "ui/binariesmodel.h"

#include <QString>
#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace symflame::ui {

class BinariesPanel : public QWidget {
    Q_OBJECT
public:
    explicit BinariesPanel(QWidget* parent = nullptr);

    BinariesModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    void setRows(std::vector<symbolize::BinaryRow> rows, int64_t totalValue);
    /// Whether debuginfod servers are enabled (the Fetch action is offered only then).
    void setFetchEnabled(bool enabled);
    void setOnlyProblems(bool only);
    /// The debuginfod servers the last symbolization gave up (givenUpLine() each); shown under
    /// the summary with a "Work Offline" button while there are any.
    void setServersGivenUp(const QStringList& lines);
    /// The row shown in the details, or -1.
    int currentRow() const;
    void selectRow(int row);

    struct Candidate {
        bool accepted = false;
        bool unverified = false; ///< the profile has no build ID to check the file against
        QString fileBuildId;
        QString message; ///< for the user: why it was refused, or what will happen
    };
    /// Checks a file the user picked for row: it must be ELF and carry the row's build ID.
    Candidate checkCandidate(int row, const QString& path) const;

signals:
    /// A file with the right build ID was picked for the row's binary.
    void fileLocated(int row, const QString& path);
    void searchDirectoryAdded(const QString& dir);
    void fetchRequested(int row);
    /// The user chose to stop asking debuginfod servers (after one was given up).
    void workOfflineRequested();
    /// Highlight the binary's frames in the flame graph.
    void showInFlameGraph(int row);

private:
    void updateDetails();
    void updateSummary();
    void locateFile();
    void addSearchDirectory();
    void copyBuildId();
    void copyUploadCommand();

    BinariesModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QCheckBox* m_onlyProblems = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_serversGivenUp = nullptr;
    QPushButton* m_workOffline = nullptr;
    QPlainTextEdit* m_details = nullptr;
    QPushButton* m_locate = nullptr;
    QPushButton* m_addDir = nullptr;
    QPushButton* m_fetch = nullptr;
    QPushButton* m_copyId = nullptr;
    QPushButton* m_copyUpload = nullptr;
    QPushButton* m_show = nullptr;
    bool m_fetchEnabled = false;
};

} // namespace symflame::ui
