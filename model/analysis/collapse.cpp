// Folded stacks from the top-down call tree: each node with a self value is one line, written in
// one depth-first walk, linear in the text.
#include "model/analysis/collapse.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace symflame::model {

std::string collapseStacks(const Profile& profile, const SymbolTable& symbols, size_t sampleType)
{
    const CallTree tree = CallTree::build(profile, symbols, sampleType, CallTree::Direction::TopDown);

    // Depth-first over the tree with children in name order writes the lines almost sorted;
    // it is off only where a sibling's name continues with a byte below ';' (e.g. "a" and "a b")
    // or where two symbols print the same. Lines are checked as they are written, and sorted
    // and merged afterwards only when needed.
    struct Entry {
        size_t offset; ///< of the stack text in out
        size_t length; ///< of the stack text
        int64_t value;
    };
    std::string out;
    std::vector<Entry> entries;
    bool ordered = true;
    std::string prefix;
    struct Item {
        NodeId node;
        size_t prefixLength; ///< length of the prefix before this node's name was added
    };
    std::vector<Item> work;
    const auto top = tree.children(tree.root());
    for (auto it = top.rbegin(); it != top.rend(); ++it)
        work.push_back({ *it, 0 });
    while (!work.empty()) {
        const Item item = work.back();
        work.pop_back();
        prefix.resize(item.prefixLength);
        const CallTreeNode& node = tree.node(item.node);
        if (item.prefixLength != 0)
            prefix += ';';
        prefix += symbols.displayName(node.symbol);
        if (node.self != 0) {
            if (ordered && !entries.empty()) {
                const Entry& last = entries.back();
                ordered = std::string_view(out).substr(last.offset, last.length) < std::string_view(prefix);
            }
            entries.push_back({ out.size(), prefix.size(), node.self });
            out += prefix;
            out += ' ';
            out += std::to_string(node.self);
            out += '\n';
        }
        const auto kids = tree.children(item.node);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
            work.push_back({ *it, prefix.size() });
    }
    if (ordered)
        return out;

    const std::string texts = std::move(out);
    auto textOf = [&](const Entry& e) { return std::string_view(texts).substr(e.offset, e.length); };
    std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) { return textOf(a) < textOf(b); });
    std::string sorted;
    sorted.reserve(texts.size());
    for (size_t i = 0; i < entries.size();) {
        int64_t sum = 0;
        size_t j = i;
        for (; j < entries.size() && textOf(entries[j]) == textOf(entries[i]); ++j)
            sum += entries[j].value;
        if (sum != 0) {
            sorted += textOf(entries[i]);
            sorted += ' ';
            sorted += std::to_string(sum);
            sorted += '\n';
        }
        i = j;
    }
    return sorted;
}

} // namespace symflame::model
