#include "LabReset.h"
#include "EnvironmentBook.h"
#include "LabResetError.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/IndexerErrors.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>

namespace forkscope::lab {

namespace {

constexpr qint64 kMethodNotFound = -32601;

QString comparableUrl(const QUrl& url)
{
    return url
        .adjusted(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash | QUrl::NormalizePathSegments)
        .toString();
}

// JSON-RPC's "method not found" as real nodes word it (geth: "the method ... does not
// exist/is not available"; others answer -32601 or say "not supported").
bool isMethodNotFound(const rpc::RpcError& e)
{
    if (e.kind != rpc::RpcError::Kind::Remote && e.kind != rpc::RpcError::Kind::Http)
        return false;
    const QString m = e.message.toLower();
    return e.code == kMethodNotFound || m.contains(QLatin1String("method not found")) ||
           m.contains(QLatin1String("does not exist")) ||
           m.contains(QLatin1String("not available")) || m.contains(QLatin1String("unsupported")) ||
           m.contains(QLatin1String("not supported"));
}

QString knownList(const QList<indexer::Environment>& envs)
{
    QStringList parts;
    for (const auto& e : envs)
        parts << (e.archivedAt.isEmpty() ? e.id + QStringLiteral(" (live)")
                                         : e.id + QStringLiteral(" (archived)"));
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", "));
}

struct Genesis
{
    quint64 chainId = 0;
    QString hash;
};

Genesis readGenesis(rpc::EthClient& eth)
{
    Genesis g;
    g.chainId = eth.chainId();
    const auto block = eth.blockByNumber(0);
    if (!block) {
        rpc::RpcError e;
        e.kind = rpc::RpcError::Kind::Malformed;
        e.method = QStringLiteral("eth_getBlockByNumber(0x0)");
        e.endpoint = eth.rpc().endpoint().toString(QUrl::RemoveUserInfo);
        e.message = QStringLiteral("the node answered null for its genesis block");
        throw rpc::RpcException(e);
    }
    g.hash = block->hash.toHex();
    return g;
}

QList<indexer::Environment> chooseArchived(const QList<indexer::Environment>& envs,
                                           const QString& requested, const QUrl& rpcUrl,
                                           const std::optional<Genesis>& before)
{
    if (!requested.isEmpty()) {
        for (const auto& e : envs) {
            if (e.id != requested)
                continue;
            if (!e.archivedAt.isEmpty())
                throw LabResetError(LabResetError::Kind::BadEnvironment,
                                    QStringLiteral("environment %1 was already archived at %2; "
                                                   "nothing was reset")
                                        .arg(e.id, e.archivedAt));
            return {e};
        }
        throw LabResetError(LabResetError::Kind::BadEnvironment,
                            QStringLiteral("no environment %1 to archive; known environments: %2; "
                                           "nothing was reset")
                                .arg(requested, knownList(envs)));
    }
    QList<indexer::Environment> live;
    QList<indexer::Environment> ofThisNode;
    for (const auto& e : envs) {
        if (!e.archivedAt.isEmpty())
            continue;
        live << e;
        // The reset erases this node's chain: every environment describing that chain (by
        // URL, or by chain id + genesis when it was indexed through another URL) loses it.
        const bool sameUrl = comparableUrl(QUrl(e.rpcUrl)) == comparableUrl(rpcUrl);
        const bool sameChain =
            before && e.chainId == before->chainId && e.genesisHash.toHex() == before->hash;
        if (sameUrl || sameChain)
            ofThisNode << e;
    }
    if (!ofThisNode.isEmpty())
        return ofThisNode;
    if (!live.isEmpty())
        return {live.first()}; // list() is newest first
    return {};
}

} // namespace

QString LabReset::newEnvironmentId()
{
    return QStringLiteral("lab-") +
           QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
}

LabResetResult LabReset::reset(store::Database& db, rpc::JsonRpcClient& rpc, const QUrl& rpcUrl,
                               const QString& newEnvironmentId, const QString& environmentToArchive)
{
    return reset(*EnvironmentBook::sqlite(db), rpc, rpcUrl, newEnvironmentId, environmentToArchive);
}

LabResetResult LabReset::reset(EnvironmentBook& book, rpc::JsonRpcClient& rpc, const QUrl& rpcUrl,
                               const QString& newEnvironmentId, const QString& environmentToArchive)
{
    const QString url = rpcUrl.toString(QUrl::RemoveUserInfo);
    LabResetResult r;
    r.newEnvironmentId = newEnvironmentId.trimmed();
    if (r.newEnvironmentId.isEmpty())
        r.newEnvironmentId = LabReset::newEnvironmentId();

    // Order, and why:
    //  1. Take the database's write lock first (BEGIN IMMEDIATE, with the usual busy
    //     timeout). A locked database then fails before the node is touched, and nothing
    //     can archive or create environments between our decision and our commit.
    //  2. Decide and check everything that needs only the database (what to archive, the
    //     new id is free), and read the node's current genesis (an unreachable node stops
    //     here): still nothing changed anywhere.
    //  3. anvil_reset. This is the one step that cannot be undone, so it goes last of the
    //     risky ones; if it fails, we roll back and the database is exactly as it was.
    //  4. Read the new genesis, archive and register in the SAME transaction, commit.
    // If 4 fails (disk full, the node dies right after the reset), the node is reset but
    // the database is unchanged: the old environment is still live, yet `forkscope index`
    // refuses it (ChainResetError: the genesis differs), so no history is mixed, and
    // running `lab reset` again completes the job. The opposite order (archive, then reset)
    // would leave an archived environment with a live chain when the reset fails.
    book.begin();
    // Rolls back unless committed: an exception between BEGIN and COMMIT leaves nothing.
    struct Rollback
    {
        EnvironmentBook& book;
        bool done = false;
        ~Rollback()
        {
            if (!done)
                book.rollback();
        }
    } tx{book};
    const QList<indexer::Environment> envs = book.list();
    for (const auto& e : envs)
        if (e.id == r.newEnvironmentId)
            throw LabResetError(LabResetError::Kind::BadEnvironment,
                                QStringLiteral("environment %1 already exists; choose another "
                                               "--env; nothing was reset")
                                    .arg(r.newEnvironmentId));

    rpc::EthClient eth(rpc);
    std::optional<Genesis> before;
    try {
        before = readGenesis(eth);
    } catch (const rpc::RpcException& e) {
        if (e.error().isUnavailability())
            throw LabResetError(LabResetError::Kind::NodeUnreachable,
                                QStringLiteral("node %1 is unreachable (%2); nothing was reset "
                                               "or archived")
                                    .arg(url, e.error().toString()));
        // A node that answers, but not eth_chainId: anvil_reset below says what it is.
    }
    const QList<indexer::Environment> toArchive =
        chooseArchived(envs, environmentToArchive.trimmed(), rpcUrl, before);
    if (before)
        r.previousGenesisHash = before->hash;

    try {
        rpc.callBlocking(QStringLiteral("anvil_reset"), {});
    } catch (const rpc::RpcException& e) {
        const rpc::RpcError& err = e.error();
        if (isMethodNotFound(err))
            throw LabResetError(LabResetError::Kind::NotAnvil,
                                QStringLiteral("%1 is not an anvil devnet (anvil_reset: method "
                                               "not found: %2); nothing was archived")
                                    .arg(url, err.message));
        if (err.kind == rpc::RpcError::Kind::Timeout)
            throw LabResetError(LabResetError::Kind::ResetOutcomeUnknown,
                                QStringLiteral("%1 did not answer anvil_reset in time (%2): the "
                                               "node may or may not have been reset; nothing "
                                               "was archived; check the node and run `lab reset` "
                                               "again")
                                    .arg(url, err.toString()));
        if (err.isUnavailability())
            throw LabResetError(LabResetError::Kind::NodeUnreachable,
                                QStringLiteral("node %1 is unreachable (%2); nothing was reset "
                                               "or archived")
                                    .arg(url, err.toString()));
        throw LabResetError(LabResetError::Kind::ResetFailed,
                            QStringLiteral("anvil_reset failed on %1 (%2); nothing was archived")
                                .arg(url, err.toString()));
    }
    // anvil's clock starts again from its first genesis: without this the new chain's blocks
    // would carry the time anvil started, minutes before the environment was created. A
    // node that refuses it keeps its own clock (nothing depends on it).
    try {
        rpc.callBlocking(QStringLiteral("evm_setNextBlockTimestamp"),
                         {QDateTime::currentSecsSinceEpoch()});
    } catch (const rpc::RpcException&) {
    }

    const QString notUpdated =
        QStringLiteral("node %1 was reset, but the database was not updated (%2); the old "
                       "environment stays live, `forkscope index` refuses it because the "
                       "genesis changed; run `forkscope lab reset` again");
    Genesis after;
    try {
        after = readGenesis(eth);
    } catch (const rpc::RpcException& e) {
        throw LabResetError(LabResetError::Kind::DatabaseNotUpdated,
                            notUpdated.arg(url, e.error().toString()));
    }
    r.chainId = after.chainId;
    r.newGenesisHash = after.hash;

    try {
        for (const auto& e : toArchive)
            r.archivedEnvironmentIds << e.id;
        r.archivedEnvironmentId = r.archivedEnvironmentIds.value(0);
        r.blocksKept = book.countRows(QStringLiteral("blocks"), r.archivedEnvironmentIds);
        r.logsKept = book.countRows(QStringLiteral("logs"), r.archivedEnvironmentIds);
        r.transfersKept =
            book.countRows(QStringLiteral("transfer_events"), r.archivedEnvironmentIds);
        r.balancesKept = book.countRows(QStringLiteral("token_balances"), r.archivedEnvironmentIds);
        r.outboxKept = book.countRows(QStringLiteral("outbox"), r.archivedEnvironmentIds);
        r.reorgsKept = book.countRows(QStringLiteral("reorg_events"), r.archivedEnvironmentIds);
        r.checkpointsKept =
            book.countRows(QStringLiteral("indexer_checkpoints"), r.archivedEnvironmentIds);
        r.backfillRangesKept =
            book.countRows(QStringLiteral("backfill_ranges"), r.archivedEnvironmentIds);

        r.archivedAt = store::nowUtc();
        for (const QString& id : r.archivedEnvironmentIds)
            book.archive(id, r.archivedAt);
        book.open(r.newEnvironmentId, after.chainId,
                  chain::Hash32::fromHex(after.hash, QStringLiteral("genesis hash")), rpcUrl);
        book.commit();
        tx.done = true;
    } catch (const store::StoreError& e) {
        throw LabResetError(LabResetError::Kind::DatabaseNotUpdated,
                            notUpdated.arg(url, e.message()));
    } catch (const indexer::IndexerError& e) {
        throw LabResetError(LabResetError::Kind::DatabaseNotUpdated,
                            notUpdated.arg(url, e.message()));
    }
    return r;
}

} // namespace forkscope::lab
