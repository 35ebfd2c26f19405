// The Source and Disassembly panel: the source file of a function with the self and total cost
// of each line (through inline chains, as `symflame source`), beside the function's annotated
// disassembly (as `symflame disasm`); selecting a line selects its instructions and back. The
// content is made off the GUI thread (loadSourceContent) and handed to setContent.
#pragma once

#include "model/analysis/sourcelines.h"
#include "symbolize/js/sourcemapresolver.h"
#include "symbolize/locate/sourcefiles.h"
#include "symbolize/pass/disassembly.h"

#include "ui/jobtracker.h"

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QTableView;
class QSplitter;

namespace symflame::ui {

/// What the panel shows for one function; made by loadSourceContent.
struct SourceContent {
    std::string function; ///< the name asked for
    std::string unit;
    int64_t total = 0; ///< the sample type's total
    /// The function's lines in the source file with the most of its cost (no value: the profile
    /// has no lines for it).
    std::optional<model::FunctionLines> lines;
    size_t otherFiles = 0; ///< files of the function's other lines (inlined header code ...)
    symbolize::SourceFile file;
    /// A JavaScript function: its source through the source map, no machine code to show.
    bool javaScript = false;
    std::vector<symbolize::DisassembledFunction> disassembly; ///< symbols of that name with samples
    std::vector<std::string> problems; ///< why a binary or its code could not be shown
    /// The source file may not be the one the binary was built from: the debug info names lines
    /// past its end, its MD5 differs from the one DWARF 5 records for it, or (no MD5 recorded)
    /// it was modified after the binary was written. Empty otherwise.
    std::string sourceWarning;
    std::string error; ///< nothing to show at all, and why
};

/// Reads what the panel shows for function (a display name of the profile) of sampleType.
/// Runs on any thread; reads the binaries and the source file. A source-mapped JavaScript
/// function's text comes from its map's sourcesContent (sourceMaps: the pass's report), else
/// from the original file found on disk.
SourceContent loadSourceContent(const model::Profile& profile, size_t sampleType, const std::string& function,
    const symbolize::SourceSearch& search, const symbolize::DisassemblyOptions& options,
    const symbolize::SourceMapReport* sourceMaps = nullptr);

class SourceLinesModel;
class InstructionsModel;

class SourcePanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcePanel(QWidget* parent = nullptr);
    ~SourcePanel() override;

    /// Shows function of the profile: reads its source and code off the GUI thread (a newer
    /// request replaces a running one), then setContent; contentShown follows.
    /// sourceMaps: the report of the pass that mapped the profile's JavaScript frames (may be null).
    void showFunction(std::shared_ptr<const model::Profile> profile, size_t sampleType, const std::string& function,
        symbolize::SourceSearch search, symbolize::DisassemblyOptions options,
        std::shared_ptr<const symbolize::SourceMapReport> sourceMaps = nullptr);
    void setLoading(const QString& function);
    void setContent(std::shared_ptr<const SourceContent> content);
    const SourceContent* content() const { return m_content.get(); }

    QTableView* sourceView() const { return m_sourceView; }
    QTableView* instructionsView() const { return m_asmView; }

signals:
    /// setContent showed a function's content.
    void contentShown(const QString& function);
    /// The user chose the file for a source not found (the path the debug info gives, and where it is).
    void sourceLocated(const QString& recordedPath, const QString& localPath);

private:
    void selectInstructionsOfLine(int row);
    void selectLineOfInstruction(int row);

    std::shared_ptr<const SourceContent> m_content;
    QLabel* m_header = nullptr;
    QPushButton* m_locate = nullptr;
    QSplitter* m_splitter = nullptr;
    QTableView* m_sourceView = nullptr;
    QTableView* m_asmView = nullptr;
    SourceLinesModel* m_sourceModel = nullptr;
    InstructionsModel* m_asmModel = nullptr;
    bool m_syncing = false;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
