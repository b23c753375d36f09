#pragma once

#include "FactorySource.h"

#include <QHash>
#include <QList>
#include <QMutex>
#include <cstdint>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::wire {

// The children of a source's factories the fetch threads know of, shared by them: each
// range is fetched with every child created up to its end in its address list.
//
// Before a range is fetched, the factories' creation events up to its end are read in one
// cheap call (the factories' addresses, the events' topics: a log per child), from where
// the last such scan ended (scanThrough). Ranges are fetched in parallel ahead of the
// commits, so a child created in an earlier range is known before that range commits. What
// a scan says is only a hint: the receiver holds every batch to the creation events its
// verified logs contain and to the children stored, and refuses a batch fetched without one
// of them (Indexer::apply), after which the range is fetched again with it.
class ChildDirectory
{
public:
    ChildDirectory(QList<FactorySource> sources, qint64 logsPerCall)
        : m_sources(std::move(sources)), m_logsPerCall(logsPerCall)
    {
    }

    const QList<FactorySource>& sources() const { return m_sources; }

    // Starts again from the children stored, scanned up to `scannedThrough` (the checkpoint).
    void reset(const QList<ChildCreation>& stored, std::optional<std::uint64_t> scannedThrough);
    // A child the receiver found the fetch had not known.
    void add(const chain::Address& child, std::uint64_t block);
    // After a rollback to `block`: what was created above it is forgotten, and scanned again.
    void forgetAbove(std::uint64_t block);
    // Reads the factories' creation events of the blocks after the last scan up to `to`.
    // Throws rpc::RpcException (node trouble, as any fetch).
    void scanThrough(rpc::EthClient& eth, std::uint64_t to);
    // Every child known to be created at or below `to`.
    QList<chain::Address> createdThrough(std::uint64_t to) const;
    qsizetype size() const;

private:
    const QList<FactorySource> m_sources;
    const qint64 m_logsPerCall;
    mutable QMutex m_mutex;
    QHash<chain::Address, std::uint64_t> m_created; // child -> creation block
    std::optional<std::uint64_t> m_scanned;         // last block scanned
};

} // namespace forkscope::wire
