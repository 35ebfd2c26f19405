// Shaping the call graph the way pprof's -focus, -ignore and -hide do, for a function or a
// whole binary, plus collapsing direct recursion and the two halves of a sandwich view
// (everything a function calls, everything that calls it). A StackFilter is built once per
// change of the rules and applied to each distinct stack while a call tree or top table is built.
#pragma once

#include "model/analysis/symboltable.h"
#include "model/core/profile.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace symflame::model {

struct FilterRule {
    enum class Action : uint8_t {
        Focus,  ///< keep only stacks with a matching frame
        Ignore, ///< drop stacks with a matching frame
        Hide,   ///< remove matching frames, keep the rest of the stack
    };
    enum class Target : uint8_t {
        Function, ///< name is a function's display name, compared exactly
        Binary,   ///< name is a mapping's file, compared with the full path or its last component
    };
    Action action = Action::Focus;
    Target target = Target::Function;
    std::string name;

    bool operator==(const FilterRule&) const = default;
};

/// "focus", "ignore", "hide".
const char* filterActionName(FilterRule::Action action);

class StackFilter {
public:
    /// Which part of the stacks through one function to keep, for a sandwich view.
    enum class Sandwich : uint8_t {
        None,
        Callees, ///< from the function's outermost frame to the leaf
        Callers, ///< from the root to the function's innermost frame
    };

    /// Flags every symbol the rules match. With sandwich set, stacks without `pivot` are dropped.
    static StackFilter build(const Profile& profile, const SymbolTable& symbols, std::span<const FilterRule> rules,
        bool collapseRecursion, SymbolId pivot = {}, Sandwich sandwich = Sandwich::None);

    /// True when apply() changes nothing.
    bool isIdentity() const { return m_identity; }

    /// Shapes one stack given as symbol name ranks (SymbolTable::nameRank), root first when
    /// rootFirst, else leaf first; rewrites ranks[0..n) in place and returns the new length,
    /// or nullopt when the whole stack is dropped.
    std::optional<size_t> apply(uint32_t* ranks, size_t n, bool rootFirst) const;

private:
    enum Flag : uint8_t { FocusFlag = 1, IgnoreFlag = 2, HideFlag = 4, PivotFlag = 8 };
    std::vector<uint8_t> m_flags; // per name rank
    bool m_identity = true;
    bool m_anyFocus = false;
    bool m_anyIgnore = false;
    bool m_anyHide = false;
    bool m_collapseRecursion = false;
    Sandwich m_sandwich = Sandwich::None;
};

} // namespace symflame::model
