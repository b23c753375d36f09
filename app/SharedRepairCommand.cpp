#include "SharedRepairCommand.h"
#include "CommandLine.h"
#include "UnixSignalWatcher.h"
#include "audit/AuditError.h"
#include "audit/RebuildCheck.h"
#include "audit/SharedAuditTarget.h"
#include "indexer/IndexerErrors.h"
#include "indexer/SharedHeadFollower.h"
#include "rpc/EthClient.h"
#include "rpc/RpcError.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"

#include <QCoreApplication>
#include <QHostInfo>
#include <cstdio>

namespace forkscope::app {

int runSharedRepair(const QString& url, const QString& environmentId, const QUrl& rpc,
                    std::uint64_t from, const QString& abiPath)
{
    try {
        indexer::IndexerConfig config;
        {
            // What the environment indexes (its contract set, its first block), read before
            // anything is changed; unknown and archived environments are refused here.
            auto db = store::pg::PgConnection::open(url);
            store::pg::requireCurrentPgContract(*db);
            const audit::AuditTarget target = audit::loadSharedAuditTarget(*db, environmentId);
            config.contracts = target.contracts;
            config.fromBlock = target.checkpoint.startBlock;
            // The rollback keeps the Transfers below `from`: a balance they do not sum to
            // must not hide one of them edited there (RebuildCheck.h).
            rpc::JsonRpcClient client(rpc);
            client.setTimeout(config.rpcTimeout);
            rpc::EthClient eth(client);
            target.checkNode(eth, rpc, QStringLiteral("nothing was changed"));
            store::pg::PgContractReader reader(*db);
            audit::checkRebuildBelow(reader, eth, target, from);
        }
        config.dbPath = url;
        // The environment's recorded ABI must match (PgEnvironmentRegistry), so repaired
        // blocks are decoded as the rest were.
        config.abiPath = abiPath;
        config.rpcUrl = rpc;
        config.environmentId = environmentId;
        config.exitWhenSynced = true;
        config.stopToken = std::make_shared<concurrency::StopToken>();
        UnixSignalWatcher signalWatcher;
        QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested,
                         [token = config.stopToken](int) { token->requestStop(); });
        indexer::SharedHeadFollower::Options options{config,
                                                     QStringLiteral("repair/%1/%2")
                                                         .arg(QHostInfo::localHostName())
                                                         .arg(QCoreApplication::applicationPid()),
                                                     {},
                                                     from,
                                                     std::nullopt};
        indexer::SharedHeadFollower repair(options);
        const indexer::SharedFollowResult r = repair.run([](const QString& line) {
            std::printf("%s\n", qPrintable(line));
            std::fflush(stdout);
        });
        std::printf("repaired: %s from block %llu, %lld blocks (%lld logs) indexed again\n",
                    qPrintable(environmentId), static_cast<unsigned long long>(from),
                    static_cast<long long>(r.blocks), static_cast<long long>(r.logs));
        std::fflush(stdout);
        return ExitOk;
    } catch (const audit::AuditError& e) {
        printError(QStringLiteral("repair: ") + e.message());
    } catch (const store::StoreError& e) {
        printError(e.message());
    } catch (const indexer::IndexerError& e) {
        printError(QStringLiteral("repair: ") + e.message());
    } catch (const rpc::RpcException& e) {
        printError(QStringLiteral("repair: node %1: %2")
                       .arg(rpc.toString(QUrl::RemoveUserInfo), e.error().toString()));
    }
    return ExitFailure;
}

} // namespace forkscope::app
