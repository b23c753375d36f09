#pragma once

#include "chain/Address.h"

#include <QString>

namespace forkscope::indexer {

// What archiving one contract of an environment did (docs/sources.md, "Archiving a
// contract"): its rows left the environment's live tables, every one kept, under an
// archived environment of their own on the same chain that reads like any other
// (View > Environments, `--env` of `report`).
struct ArchivedSource
{
    chain::Address address;
    QString environmentId;        // the environment it left
    QString archiveEnvironmentId; // where its rows are now, archived (read-only)
    QString archivedAt;           // UTC ISO 8601
    std::uint64_t checkpoint = 0; // the environment's checkpoint when it was archived
    qint64 logs = 0;
    qint64 transfers = 0;
    qint64 balances = 0;
    qint64 outboxRows = 0;
    qint64 children = 0;     // a factory's children (factory_children rows), archived with it
    bool wasPending = false; // an added contract whose backfill had not joined yet
};

// The archived environment's id: the environment's, "~archive~", the contract's first 8 hex
// digits and the time, so that archiving it again after a re-add never collides.
QString archiveEnvironmentId(const QString& environmentId, const chain::Address& address,
                             const QString& archivedAt);
// The archive of `address` out of `environmentId` at `archivedAt`, named as above; the
// store fills in the counts.
ArchivedSource archiveOf(const chain::Address& address, const QString& environmentId,
                         std::uint64_t checkpoint, const QString& archivedAt);

} // namespace forkscope::indexer
