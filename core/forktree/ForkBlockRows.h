#pragma once

#include "chain/Hash32.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace forkscope::forktree {

// A row stored in one block, or removed with it by a rollback.
struct ForkBlockRow
{
    // OutboxUnconfirmed: a row delivery sent (or was about to) without a confirmation; it
    // was retracted as a delivered one is.
    enum class Kind { Log, Transfer, OutboxDelivered, OutboxRetraction, OutboxUnconfirmed };
    Kind kind = Kind::Log;
    chain::Hash32 txHash;
    quint32 logIndex = 0;
    QString contract;      // 0x-hex
    QString from;          // Transfers only
    QString to;            // Transfers only
    QString value;         // decimal, Transfers only
    bool cameBack = false; // orphaned blocks: back in the re-indexed chain (the diff's answer)
    QString eventKey;      // outbox rows: the key the consumer received
};

// What a click on a block shows: a canonical block's stored rows, or an orphaned block's
// removed rows.
struct ForkBlockRows
{
    quint64 number = 0;
    chain::Hash32 hash;
    bool orphaned = false;
    qint64 reorgId = 0; // orphaned blocks: the rollback that removed it
    QVector<ForkBlockRow> rows;
    bool truncated = false; // more rows than the reply holds (bounded)
};

} // namespace forkscope::forktree

Q_DECLARE_METATYPE(forkscope::forktree::ForkBlockRows)
