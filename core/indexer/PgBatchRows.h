#pragma once

#include "abi/EventRegistry.h"
#include "chain/Address.h"
#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"
#include "store/pg/PgCopyRows.h"

#include <QList>
#include <QString>

namespace forkscope::store::pg {
class PgConnection;
}
namespace forkscope::wire {
struct WireBatch;
}

namespace forkscope::indexer {

// A verified run of blocks for the PostgreSQL store, as COPY rows: its blocks, its logs
// (a Transfer's value decoded, or why a Transfer-looking log is not one; with an ABI, each
// log's event name and arguments as the fetch side decoded them) and one outbox row
// per Transfer, its side effect, committed with it.
class PgBatchRows
{
public:
    PgBatchRows(const QString& environmentId, qint64 chainId);

    // Checks `batch` as the receiver does (docs/design.md, "The wire: the receiver owns the
    // cursor": headers in sequence from `from`, each linked to the previous one, every log
    // within them, from an indexed contract and with its header's hash; see checkBatchLog)
    // and appends it. The first header must link to the last one appended before. Throws
    // NodeInconsistentError, wire::ReplyMismatchError.
    void append(const wire::WireBatch& batch, std::uint64_t from,
                const QList<chain::Address>& contracts, const QString& endpoint);

    // COPY the rows, inside the caller's transaction.
    void copyInto(store::pg::PgConnection& db) const;

    // What batches wrote for blocks `from` to `to` of an environment, inside the caller's
    // transaction: their outbox rows not yet delivered, their logs and their blocks.
    // Delivered outbox rows stay (a rollback keeps them as text first). Returns how many
    // rows went.
    static qint64 removeBlocks(store::pg::PgConnection& db, const QByteArray& environmentId,
                               const QByteArray& chainId, qint64 from, qint64 to);

    bool isEmpty() const { return m_headers.isEmpty(); }
    const QList<chain::BlockHeader>& headers() const { return m_headers; }
    qsizetype logCount() const { return m_logs.rows(); }

private:
    void addLog(const chain::LogEntry& log, const abi::EventDecoding& abiDecoding);

    QByteArray m_env;
    qint64 m_chainId;
    QList<chain::BlockHeader> m_headers;
    store::pg::PgCopyRows m_blocks, m_logs, m_outbox;
};

} // namespace forkscope::indexer
