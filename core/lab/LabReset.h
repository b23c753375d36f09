#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace forkscope::rpc {
class JsonRpcClient;
}
namespace forkscope::store {
class Database;
}

namespace forkscope::lab {

class EnvironmentBook;

struct LabResetResult
{
    QString archivedEnvironmentId;      // the newest one archived; empty if none was live
    QStringList archivedEnvironmentIds; // every environment this reset archived
    QString archivedAt;                 // UTC ISO 8601
    QString newEnvironmentId;
    quint64 chainId = 0;         // the node's chain id after the reset
    QString previousGenesisHash; // the node's genesis before the reset
    QString newGenesisHash;      // ... and after
    // Rows kept (never deleted, still under their own environment_id) in the archived
    // environments, summed over archivedEnvironmentIds.
    qint64 blocksKept = 0;
    qint64 logsKept = 0;
    qint64 transfersKept = 0;
    qint64 balancesKept = 0;
    qint64 outboxKept = 0;
    qint64 reorgsKept = 0;
    qint64 checkpointsKept = 0;
    qint64 backfillRangesKept = 0;
};

// Resets an anvil devnet to a fresh genesis and opens a new environment for it, archiving
// the environment(s) that described the old chain: old history is neither deleted nor mixed
// with the new one (docs/design.md, "Environments").
class LabReset
{
public:
    // newEnvironmentId empty: lab-<UTC yyyyMMdd-HHmmss-zzz>. environmentToArchive empty:
    // every live environment of this node (same rpc_url, or same chain id and genesis as
    // the node before the reset), else the newest live environment, else none.
    // Throws LabResetError (see its kinds) or store::StoreError (e.g. Locked, before the
    // node is touched).
    static LabResetResult reset(store::Database& db, rpc::JsonRpcClient& rpc, const QUrl& rpcUrl,
                                const QString& newEnvironmentId = {},
                                const QString& environmentToArchive = {});
    // The same on any store (a shared PostgreSQL index: EnvironmentBook::shared).
    static LabResetResult reset(EnvironmentBook& book, rpc::JsonRpcClient& rpc, const QUrl& rpcUrl,
                                const QString& newEnvironmentId = {},
                                const QString& environmentToArchive = {});
    // A fresh lab environment id: lab-<UTC yyyyMMdd-HHmmss-zzz>.
    static QString newEnvironmentId();
};

} // namespace forkscope::lab
