#pragma once

#include "IndexerConfig.h"

#include <QString>
#include <chrono>
#include <functional>
#include <optional>

namespace forkscope::indexer {

struct SharedFollowResult
{
    qint64 blocks = 0; // blocks this process stored while it followed
    qint64 logs = 0;
    qint64 reorgs = 0;            // rollbacks it decided
    qint64 absenceSuspicions = 0; // rounds that found stored logs the node no longer returns
    bool led = false;             // it held the head lock at some point
};

// The head of an environment on a shared PostgreSQL database, followed by the
// one process that holds its "head" session lock (coord::SessionLock); the others wait and
// take over when the holder dies. Only once the backfill is complete (every range done):
// until then the checkpoint is the backfill's.
//
// Each round it indexes the blocks above the checkpoint up to the head minus
// --confirmations, checked as the backfill checks them, and records them as one more done
// range, all in the transaction that moves the checkpoint by compare-and-swap. When the
// checkpoint's block is no longer the node's, or the next block does not link to it, it
// finds the fork point (ForkFinder, at most --max-reorg-depth back) and rolls back in one
// transaction: the rows above the fork, their undelivered outbox rows, the ranges above
// it, and a reorg_events row. Outbox rows already delivered above the fork are retracted as
// in SQLite: a "retract:" row each, at the fork height, and the delivered rows keep their
// text. A reorg deeper than the limit stops it, nothing deleted.
class SharedHeadFollower
{
public:
    struct Options
    {
        IndexerConfig indexer; // dbPath is the postgresql:// URL
        QString owner;
        // Called once per round, leader or not (the outbox's delivery pass).
        std::function<void()> betweenRounds;
        // `forkscope repair`: roll back to this block - 1 in one transaction (reason
        // "repair", as a reorg rollback), index again up to the checkpoint as it was (or
        // the node's head, if lower), and return. Refused while another process holds the
        // head lock or the backfill is incomplete.
        std::optional<std::uint64_t> repairFrom;
        // `--exit-when-synced` after a backfill that ended below its target (a reorg below
        // the checkpoint during the backfill): roll back and index until the checkpoint
        // reaches this block, whichever process moves it there, and return.
        std::optional<qint64> untilCheckpoint;
    };

    explicit SharedHeadFollower(Options options);

    // Runs until the stop token is set. Throws on what must stop the process.
    SharedFollowResult run(const std::function<void(const QString&)>& say);

private:
    Options m_options;
};

} // namespace forkscope::indexer
