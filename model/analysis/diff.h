// Comparing two profiles as `go tool pprof -diff_base BASE NEW` does: one profile of NEW's samples
// and BASE's samples with their values negated, so that every sum over it (a function's flat and
// cum, a stack's value, a node of a call tree) is new minus base. Frames meet by what they mean:
// the call trees and the top table group frames by function (SymbolTable), so a rebuilt binary,
// other build ID and addresses, compares with the old one by name.
#pragma once

#include "model/analysis/calltree.h"
#include "model/core/profile.h"
#include "model/core/result.h"

#include <optional>
#include <string_view>
#include <vector>

namespace symflame::model {

struct DiffOptions {
    /// pprof's -normalize: NEW's values scaled, per sample type, so that its total is BASE's
    /// (rounded per sample as pprof rounds), before the subtraction.
    bool normalize = false;
    /// What makes two frames the same: the function's name (and inline chain), the default; the
    /// name and source file (static functions of one name in two files stay apart); or the name,
    /// file and line (which lines of a function changed). Frames are then named "name (file)"
    /// or "name (file:line)" (as they are only with a file).
    enum class Match { Function, File, Line };
    Match match = Match::Function;
};

/// "function", "file", "line" (the command line's words); nullopt for anything else.
std::optional<DiffOptions::Match> parseDiffMatch(std::string_view word);

struct DiffProfile {
    Profile profile; ///< NEW's samples first, then BASE's, negated
    size_t baseSampleStart = 0; ///< the first of BASE's samples in profile
    /// Per sample type, BASE's total of absolute values: what pprof's percentages of a diff are
    /// of (its computeTotal over the samples of the diff base).
    std::vector<int64_t> baseTotals;
};

/// Frames without a function name (no debug info, no symbols) meet by address when they are of
/// the same binary on both sides (one build ID, else one path); of a binary that was rebuilt
/// (the same file name, and other build IDs or paths on the two sides) their addresses mean
/// nothing to each other, so each side's are named "[file name]" and meet by that name alone.
/// The sample types of both are compared (in NEW's order), the others left out.
/// Errors: InvalidInput when the two have no sample type in common or other period types, as
/// merging does (naming which is BASE and which NEW).
Result<DiffProfile> diffProfiles(Profile base, Profile next, const DiffOptions& options = {});

/// The diff as one profile of 2n sample types: type t holds NEW's values of type t (0 on BASE's
/// samples), type n + t BASE's (positive, 0 on NEW's samples). Call trees and top tables of
/// type t and of type n + t are the two sides over one symbol table, so their nodes and
/// functions meet by symbol. The types keep their names; the second half's are BASE's.
/// Takes diff by value: a caller done with it moves it in, and its tables are not copied.
Profile sideBySide(DiffProfile diff);

/// For each node of shown, the node of other on the same path of symbols (root to node), or
/// an invalid id when other has no such path (a stack that is only on shown's side). Both must
/// be trees of symbols' profile, in the same direction. Linear in the nodes: children are in
/// name-rank order in both, so each parent's children are merged as sorted lists.
std::vector<NodeId> matchNodes(const CallTree& shown, const CallTree& other, const SymbolTable& symbols);

} // namespace symflame::model
