#include "ArchiveCommand.h"
#include "CommandLine.h"
#include "abi/EventRegistry.h"
#include "audit/AuditError.h"
#include "audit/AuditTarget.h"
#include "chain/ChainParseError.h"
#include "indexer/Checkpoint.h"
#include "indexer/IndexStore.h"
#include "indexer/IndexerErrors.h"
#include "store/ContractReader.h"
#include "store/DatabaseFiles.h"
#include "store/OpenStore.h"
#include "store/StoreError.h"

#include <QCommandLineParser>
#include <cstdio>

namespace forkscope::app {

namespace {

struct ArchiveOptions
{
    QString db;
    QString env;
    std::optional<chain::Address> contract;
    QString abi;
};

// Returns the error line, or {} (with `help` set when --help was asked).
QString parse(const QStringList& arguments, ArchiveOptions& o, QString* help)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Archive one contract or factory of an environment: in one transaction it leaves the "
        "contract set, and its logs, Transfers, balances and outbox rows (a factory's with its "
        "children and all of theirs) move, every one kept, under an archived environment of "
        "their own. Nothing is deleted. Stop any indexer on the environment first."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("archive-contract"), QStringLiteral("the subcommand"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database file, or a postgresql:// URL."),
                                QStringLiteral("FILE|URL"));
    const QCommandLineOption env(QStringLiteral("env"), QStringLiteral("Environment id."),
                                 QStringLiteral("ID"));
    const QCommandLineOption contract(
        QStringLiteral("contract"),
        QStringLiteral("The contract or factory to archive (0x address)."), QStringLiteral("ADDR"));
    const QCommandLineOption abi(QStringLiteral("abi"),
                                 QStringLiteral("The ABI file the environment is indexed with "
                                                "(needed when its logs are ABI-decoded)."),
                                 QStringLiteral("FILE"));
    for (const auto* opt : {&db, &env, &contract, &abi})
        p.addOption(*opt);
    if (!p.parse(arguments))
        return QStringLiteral("archive-contract: ") + p.errorText();
    if (p.isSet(QStringLiteral("help"))) {
        *help = p.helpText();
        return {};
    }
    if (const QString repeated = repeatedOption(p, {&db, &env, &contract, &abi});
        !repeated.isEmpty())
        return QStringLiteral("archive-contract: ") + repeated;
    if (p.positionalArguments().size() > 1)
        return QStringLiteral("archive-contract: unexpected argument `%1`")
            .arg(p.positionalArguments().at(1));
    for (const auto* required : {&db, &env, &contract})
        if (!p.isSet(*required))
            return QStringLiteral("archive-contract: --%1 is required")
                .arg(required->names().first());
    o.db = p.value(db);
    if (o.db.isEmpty())
        return QStringLiteral("archive-contract: --db: expected a database file path");
    o.env = p.value(env).trimmed();
    if (o.env.isEmpty())
        return QStringLiteral("archive-contract: --env: expected a non-empty id");
    try {
        o.contract =
            chain::Address::fromHex(p.value(contract).trimmed(), QStringLiteral("--contract"));
    } catch (const chain::ChainParseError& e) {
        return QStringLiteral("archive-contract: ") + e.message();
    }
    if (p.isSet(abi)) {
        o.abi = p.value(abi);
        if (o.abi.isEmpty() || store::isDatabaseFile(o.abi, o.db))
            return QStringLiteral("archive-contract: --abi: expected the ABI file");
    }
    return {};
}

// What the archive leaves as the environment's set, or the line that refuses it;
// `archivedSet` is what the archive indexes: the contract, or the factory's rule.
QString contractsAfter(const audit::AuditTarget& target, const QList<indexer::AddedSource>& added,
                       const chain::Address& address, QString* archivedSet, QString* refusal)
{
    const QString id = target.environment.id;
    QStringList rules;
    for (const wire::FactorySource& f : target.factories) {
        if (f.factory() == address)
            *archivedSet = f.ruleText();
        else
            rules << f.ruleText();
    }
    for (const indexer::AddedSource& s : added)
        if (s.address == address && s.state == indexer::SourceState::Pending)
            *archivedSet = s.setToken();
    if (archivedSet->isEmpty() && target.contracts.contains(address))
        *archivedSet = address.toHex();
    if (archivedSet->isEmpty()) {
        *refusal = QStringLiteral("%1 is not a contract nor a factory of environment %2 (it "
                                  "indexes %3); nothing was changed")
                       .arg(address.toHex(), id, target.sourcesText());
        return {};
    }
    QList<chain::Address> left = target.contracts;
    left.removeAll(address);
    return indexer::contractSetText(left, rules);
}

} // namespace

int runArchiveCommand(const QStringList& arguments)
{
    ArchiveOptions o;
    QString help;
    if (const QString error = parse(arguments, o, &help); !error.isEmpty()) {
        printError(error);
        return ExitUsage;
    }
    if (!help.isEmpty()) {
        std::fputs(qPrintable(help), stdout);
        return ExitOk;
    }
    std::unique_ptr<indexer::IndexStore> store;
    try {
        store::StoreOptions so;
        so.existing = true;
        so.alone = true;
        so.owner = QStringLiteral("archive/") + store::defaultOwner();
        store = store::openIndexStore(o.db, so);
    } catch (const store::StoreError& e) {
        printError(QStringLiteral("archive-contract: %1; nothing was changed").arg(e.message()));
        return ExitFailure;
    }
    try {
        const audit::AuditTarget target = audit::AuditTarget::load(store->reader(), o.env);
        indexer::EnvironmentClaim claim;
        claim.environmentId = target.environment.id;
        claim.sourceId = target.sourceId;
        claim.chainId = target.environment.chainId;
        claim.genesis = target.environment.genesisHash;
        claim.rpcUrl = QUrl(target.environment.rpcUrl); // as recorded: no node is asked
        claim.contracts = target.contracts;
        for (const wire::FactorySource& f : target.factories)
            claim.factoryRules << f.ruleText();
        if (!o.abi.isEmpty())
            claim.abiDigest = abi::EventRegistry::fromFile(o.abi).digest();
        store->open(claim);
        QString refusal, archivedSet;
        const QString after =
            contractsAfter(target, store->addedSources(), *o.contract, &archivedSet, &refusal);
        if (!refusal.isEmpty()) {
            printError(QStringLiteral("archive-contract: ") + refusal);
            return ExitFailure;
        }
        const indexer::ArchivedSource a = store->archiveSource(*o.contract, after, archivedSet);
        const QString children =
            archivedSet.startsWith(QLatin1String("factory:"))
                ? QStringLiteral("factory with %1 %2: ")
                      .arg(a.children)
                      .arg(a.children == 1 ? QStringLiteral("child") : QStringLiteral("children"))
                : QString();
        std::printf("archived %s from environment %s at %s (checkpoint %llu%s): %s%lld logs, "
                    "%lld transfers, %lld balances and %lld outbox rows moved, every one kept, "
                    "to archived environment %s; nothing was deleted\n",
                    qPrintable(a.address.toHex()), qPrintable(a.environmentId),
                    qPrintable(a.archivedAt), static_cast<unsigned long long>(a.checkpoint),
                    a.wasPending ? ", its own backfill not joined yet" : "", qPrintable(children),
                    static_cast<long long>(a.logs), static_cast<long long>(a.transfers),
                    static_cast<long long>(a.balances), static_cast<long long>(a.outboxRows),
                    qPrintable(a.archiveEnvironmentId));
        std::printf("next: index the environment without it; naming it again (--contract, "
                    "--factory) backfills it again from its start block\n");
        std::fflush(stdout);
        return ExitOk;
    } catch (const audit::AuditError& e) {
        printError(QStringLiteral("archive-contract: ") + e.message());
    } catch (const abi::AbiError& e) {
        printError(QStringLiteral("archive-contract: --abi: ") + e.message());
    } catch (const indexer::CheckpointMovedError& e) {
        printError(QStringLiteral("archive-contract: the checkpoint moved under the archive "
                                  "(another process is indexing this environment: stop it "
                                  "first); nothing was changed (%1)")
                       .arg(e.message()));
    } catch (const indexer::IndexerError& e) {
        printError(QStringLiteral("archive-contract: ") + e.message());
    } catch (const store::StoreError& e) {
        printError(QStringLiteral("archive-contract: %1; nothing was changed").arg(e.message()));
    } catch (const chain::ChainParseError& e) {
        printError(
            QStringLiteral("archive-contract: bad data in the database: %1").arg(e.message()));
    }
    return ExitFailure;
}

} // namespace forkscope::app
