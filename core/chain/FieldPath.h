#pragma once

#include <QString>

namespace forkscope::chain {

// The name of a field in a reply ("eth_getLogs[3].topics[1]"), kept as a chain of stack
// frames and rendered only when an error names it: the hot path reads millions of fields,
// and building a QString for each one cost more than reading it.
class FieldPath
{
public:
    // The root: a context such as "eth_getLogs" or "eth_getBlockByNumber(0x10)". The string
    // must outlive the path (it is not copied).
    explicit FieldPath(const QString& root) : m_root(&root) {}
    // root.member
    FieldPath(const FieldPath& parent, const char* member) : m_parent(&parent), m_member(member) {}
    // root[index]
    FieldPath(const FieldPath& parent, qsizetype index) : m_parent(&parent), m_index(index) {}

    QString toString() const;

private:
    const FieldPath* m_parent = nullptr;
    const QString* m_root = nullptr;
    const char* m_member = nullptr;
    qsizetype m_index = -1;
};

} // namespace forkscope::chain
