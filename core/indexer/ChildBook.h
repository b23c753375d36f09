#pragma once

#include "wire/FactorySource.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <cstdint>

namespace forkscope::indexer {

struct VerifiedBatch;

// The receiver's account of a source's children (docs/design.md, "The wire: the receiver
// owns the cursor"): the children stored, and for each verified batch the creation events
// its own logs hold. A fetch thread's list of children is only what it knew when it asked
// (wire::ChildDirectory); this book decides which logs are the source's and whether the
// batch was fetched with every child it needed.
class ChildBook
{
public:
    explicit ChildBook(QList<wire::FactorySource> sources) : m_sources(std::move(sources)) {}

    const QList<wire::FactorySource>& sources() const { return m_sources; }

    // The children stored (all of them: a rollback or another writer may have changed them);
    // those of factories not among its sources (an added factory still backfilled on its
    // own) are not its.
    void load(const QList<wire::ChildCreation>& stored);
    qsizetype size() const { return m_children.size(); }
    // How many children the store held when loaded, with those committed since (-1 after a
    // rollback): another number in the store means it changed underneath.
    qint64 storedRows() const { return m_storedRows; }
    QList<chain::Address> addresses() const { return m_children.keys(); }

    struct Judgement
    {
        QList<wire::ChildCreation> created;   // new children the batch's logs announce
        QList<wire::ChildCreation> unfetched; // children created by the batch's end that its
                                              // logs were not fetched for
        QList<chain::LogEntry> logs;          // the batch's logs that are the source's
        QList<qsizetype> kept;                // their indexes in the batch's logs

        // The batch as the source keeps it: its logs (and their decodings) only, and the
        // children it creates.
        void applyTo(VerifiedBatch& batch) const;
    };
    // `logs`: a verified batch's (sorted), of blocks up to `last`; `fetched`: the children
    // the fetch asked for; `own(address)`: whether an address is a plain contract of the
    // source or a factory (always kept). A log of a child is the source's from the child's
    // creation block on, every log of that block included (a constructor's mint comes
    // before the factory's event).
    template <typename Own>
    Judgement judge(const QList<chain::LogEntry>& logs, std::uint64_t last,
                    const QList<chain::Address>& fetched, Own own) const;

    // After the batch committed.
    void committed(const QList<wire::ChildCreation>& created);
    // After a rollback to `block`.
    void forgetAbove(std::uint64_t block);

private:
    QList<wire::FactorySource> m_sources;
    QHash<chain::Address, wire::ChildCreation> m_children;
    qint64 m_storedRows = 0;
};

template <typename Own>
ChildBook::Judgement ChildBook::judge(const QList<chain::LogEntry>& logs, std::uint64_t last,
                                      const QList<chain::Address>& fetched, Own own) const
{
    Judgement j;
    QHash<chain::Address, std::uint64_t> createdAt; // the batch's new children
    for (const wire::ChildCreation& c : wire::creationsIn(logs, m_sources)) {
        if (c.blockNumber > last || m_children.contains(c.child))
            continue;
        j.created.append(c);
        createdAt.insert(c.child, c.blockNumber);
    }
    const QSet<chain::Address> asked(fetched.cbegin(), fetched.cend());
    for (const wire::ChildCreation& c : m_children)
        if (c.blockNumber <= last && !asked.contains(c.child))
            j.unfetched.append(c);
    for (const wire::ChildCreation& c : j.created)
        if (!asked.contains(c.child))
            j.unfetched.append(c);
    for (qsizetype i = 0; i < logs.size(); ++i) {
        const chain::LogEntry& log = logs[i];
        if (log.blockNumber > last)
            continue;
        bool ours = own(log.address);
        if (!ours) {
            const auto stored = m_children.constFind(log.address);
            const auto fresh = createdAt.constFind(log.address);
            ours = (stored != m_children.cend() && stored->blockNumber <= log.blockNumber) ||
                   (fresh != createdAt.cend() && *fresh <= log.blockNumber);
        }
        if (!ours)
            continue; // an address a scan named that is no child here: not the source's
        j.logs.append(log);
        j.kept.append(i);
    }
    return j;
}

} // namespace forkscope::indexer
