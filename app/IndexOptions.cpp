#include "IndexOptions.h"
#include "CommandLine.h"
#include "abi/EventRegistry.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "config/SettingsValidation.h"
#include "wire/FactorySource.h"

#include <QCommandLineParser>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <cmath>
#include <limits>

namespace forkscope::app {

namespace {

struct Flag
{
    const char* name;
    const char* configKey;
    const char* valueName;
    const char* help;
};

const Flag kFlags[] = {
    {"rpc", "rpc", "URL", "JSON-RPC endpoint of the node (http or https)."},
    {"db", "db", "FILE",
     "SQLite database file (created if missing), or postgresql://USER@HOST:PORT/DB shared "
     "by several indexer processes."},
    {"env", "env", "ID", "Environment id: one self-contained history."},
    {"source", "source", "NAME", "Source id of the checkpoint (default: default)."},
    {"contract", "contracts", "ADDR",
     "Contract address to index (repeatable, or comma-separated)."},
    {"factory", "factory", "ADDR",
     "A factory whose children are indexed too, each from the block of its creation event "
     "(with --factory-event and --child-arg)."},
    {"factory-event", "factoryEvent", "SIGNATURE",
     "The factory's creation event: its full signature, e.g. \"PairCreated(address indexed "
     "token0, address indexed token1, address pair, uint256)\", or its name in --abi."},
    {"child-arg", "childArg", "NAME",
     "The creation event's argument that holds the child's address (its name, or its index "
     "when unnamed)."},
    {"from-block", "fromBlock", "N", "First block to index (default 0)."},
    {"confirmations", "confirmations", "N",
     "Blocks below the head before data counts as safe (default 0)."},
    {"max-reorg-depth", "maxReorgDepth", "N",
     "Deepest reorg rolled back automatically (default 64)."},
    {"orphan-retention", "orphanRetention", "N",
     "Keep the blocks of the last N rollbacks for the fork tree (default 10000; 0 = none)."},
    {"batch-size", "batchSize", "N", "Blocks per round and per transaction (default 200)."},
    {"poll-ms", "pollMs", "N", "Wait between rounds at the head, in ms (default 1000)."},
    {"log-cap", "logCap", "N",
     "eth_getLogs results of exactly N logs are treated as truncated (default 10000; 0 = off)."},
    {"fetch-workers", "fetchWorkers", "N", "Parallel fetch threads for backfill (default 4)."},
    {"logs-per-call", "logsPerCall", "N",
     "About how many logs one eth_getLogs call asks for: a range is asked in up to 4 parts "
     "sent together (default 1000; 0 = one call per range)."},
    {"rpc-timeout-ms", "rpcTimeoutMs", "N",
     "Deadline of each request to the node, reply included (default 10000)."},
    {"verify", "verify", "MODE",
     "Completeness proofs of every fetch: default (bloom check and recount of the last "
     "block), receipts (also the receipts-root proof), none."},
    {"max-reply-mb", "maxReplyMb", "N",
     "Largest node reply read, in MiB (default 32); larger getLogs replies are split."},
    {"webhook", "webhook", "URL", "Deliver outbox rows by HTTP POST (Idempotency-Key: event key)."},
    {"webhook-timeout-ms", "webhookTimeoutMs", "N", "Webhook timeout per delivery (default 5000)."},
    {"webhook-batch", "webhookBatch", "N",
     "POST up to N outbox rows per request as a JSON array (1 to 500; default 1: one row)."},
    {"outbox-file", "outboxFile", "FILE", "Deliver outbox rows as JSON Lines appended to FILE."},
    {"abi", "abi", "FILE",
     "Solidity ABI JSON: decode every matching log into logs.event_name/args_json."},
    {"metrics-port", "metricsPort", "P", "Serve GET /metrics and JSON-RPC on 127.0.0.1:P."},
    {"node", "nodes", "URL",
     "A node to watch for health and the ready-ratio gate (repeatable; default: --rpc)."},
    {"ready-ratio", "readyRatio", "R",
     "Share of nodes that must report a height before it counts (default 0.8)."},
    {"lag-threshold", "lagThreshold", "N",
     "Blocks behind the best head a node may be and still be caught up (default 2)."},
    {"check-interval-ms", "checkIntervalMs", "N",
     "Node health poll interval (default 1000, at least 20)."},
    {"give-up-after-ms", "giveUpAfterMs", "N",
     "With --exit-when-synced: exit 1 once the node has been unreachable, inconsistent or "
     "behind this long without the checkpoint moving (default 120000; 0 = wait for ever)."},
    {"retry-incomplete-ms", "retryIncompleteMs", "N",
     "A block the node did not return whole is tried again from it after N ms, instead of "
     "exiting 1 (default 0: exit). With --exit-when-synced, --give-up-after-ms bounds it."},
    {"lease-ms", "leaseMs", "N",
     "PostgreSQL only: lease of a claimed backfill range; a process silent this long loses "
     "it to another (default 30000)."},
    {"config", nullptr, "FILE", "JSON file with the same settings."},
};

// The highest --from-block: block numbers are stored as SQLite's signed 64-bit INTEGER,
// and the indexer derives others from the start (checkpoint + 1, a range's end at start +
// batch size - 1); 2^62, the settings dialog's bound too, keeps every one of them in range.
constexpr std::uint64_t kMaxFromBlock = std::uint64_t(1) << 62;

std::uint64_t number(const QString& text, const QString& field)
{
    return chain::hex::parseDecimalU63(text, field);
}

// Flags that take several values (a JSON array in --config); every other flag takes one.
bool repeatable(const Flag& f)
{
    return qstrcmp(f.name, "contract") == 0 || qstrcmp(f.name, "node") == 0;
}

QString jsonTypeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QStringLiteral("the number %1")
            .arg(QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest));
    case QJsonValue::String:
        return QStringLiteral("the string \"%1\"").arg(chain::shownText(v.toString()));
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// One config value as the text its flag would carry on the command line, or the reason its
// JSON type is wrong. The kind follows the flag's value name: N and P are whole numbers, R
// a number, everything else a string. Numbers keep their exact digits (a JSON integer up to
// 2^63 - 1 is exact in QJsonValue), so the flag's own range check sees the real value.
std::optional<QString> configText(const Flag& f, const QJsonValue& v, QString* wrongType)
{
    const QLatin1String kind(f.valueName);
    if (kind == QLatin1String("N") || kind == QLatin1String("P") || kind == QLatin1String("R")) {
        if (!v.isDouble()) {
            *wrongType = kind == QLatin1String("R") ? QStringLiteral("a JSON number")
                                                    : QStringLiteral("a whole JSON number");
            return std::nullopt;
        }
        const double d = v.toDouble();
        if (kind == QLatin1String("R") || std::trunc(d) != d)
            return QString::number(d, 'g', QLocale::FloatingPointShortest); // as written
        constexpr qint64 kNone = std::numeric_limits<qint64>::min();
        const qint64 n = v.toInteger(kNone);
        return n != kNone || d == double(kNone) ? QString::number(n) : QString::number(d, 'f', 0);
    }
    if (!v.isString()) {
        *wrongType = QStringLiteral("a JSON string");
        return std::nullopt;
    }
    return v.toString();
}

} // namespace

IndexOptionsResult parseIndexOptions(const QStringList& arguments)
{
    IndexOptionsResult out;
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Follow a chain and index the contracts' logs into SQLite, reorg-safe: data and "
        "checkpoint commit together, a reorg rolls back in one transaction, a crash loses "
        "nothing. Progress goes to stdout once a second; errors are one line on stderr."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("index"), QStringLiteral("the subcommand"));
    QHash<QString, QCommandLineOption*> opts;
    std::vector<std::unique_ptr<QCommandLineOption>> owned;
    for (const Flag& f : kFlags) {
        owned.push_back(std::make_unique<QCommandLineOption>(QString::fromLatin1(f.name),
                                                             QString::fromLatin1(f.help),
                                                             QString::fromLatin1(f.valueName)));
        p.addOption(*owned.back());
        opts.insert(QString::fromLatin1(f.name), owned.back().get());
    }
    QCommandLineOption exitWhenSynced(
        QStringLiteral("exit-when-synced"),
        QStringLiteral("Exit 0 once the checkpoint reached the head."));
    p.addOption(exitWhenSynced);
    if (!p.parse(arguments)) {
        out.error = p.errorText();
        return out;
    }
    if (p.isSet(QStringLiteral("help"))) {
        out.helpRequested = true;
        out.helpText = p.helpText();
        return out;
    }
    if (p.positionalArguments().size() > 1) {
        out.error =
            QStringLiteral("index: unexpected argument `%1`").arg(p.positionalArguments().at(1));
        return out;
    }

    // `--from-block 5 --from-block 7` is ambiguous; a silent "last one wins" is no answer.
    QList<const QCommandLineOption*> single;
    for (const Flag& fl : kFlags)
        if (!repeatable(fl))
            single << opts.value(QString::fromLatin1(fl.name));
    if (const QString repeated = repeatedOption(p, single); !repeated.isEmpty()) {
        out.error = QStringLiteral("index: ") + repeated;
        return out;
    }

    // Settings: the config file first, then the command line on top.
    QHash<QString, QStringList> values; // flag name -> values
    // Flag name -> its key in --config, for the values that came from the file.
    QHash<QString, QString> fromConfig;
    QString configPath;
    if (p.isSet(*opts.value(QStringLiteral("config")))) {
        const QString path = p.value(*opts.value(QStringLiteral("config")));
        configPath = path;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            out.error = QStringLiteral("--config %1: %2").arg(path, f.errorString());
            return out;
        }
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            out.error = QStringLiteral("--config %1: not a JSON object (%2 at offset %3)")
                            .arg(path, pe.errorString())
                            .arg(pe.offset);
            return out;
        }
        const QJsonObject o = doc.object();
        QSet<QString> known{QStringLiteral("exitWhenSynced")};
        // A value of the wrong JSON type is refused, never coerced: `"contracts": "0x.."`
        // is not a list, `"fromBlock": "5"` not a number, `"exitWhenSynced": "yes"` not true.
        const auto wrong = [&](const QString& key, const QString& expected, const QJsonValue& v) {
            return QStringLiteral("--config %1: \"%2\" must be %3, got %4")
                .arg(path, key, expected, jsonTypeName(v));
        };
        for (const Flag& fl : kFlags) {
            if (!fl.configKey)
                continue;
            const QString key = QString::fromLatin1(fl.configKey);
            known.insert(key);
            const QJsonValue v = o.value(key);
            if (v.isUndefined())
                continue;
            QString wrongType;
            QStringList list;
            if (repeatable(fl)) {
                if (!v.isArray() || v.toArray().isEmpty()) {
                    out.error = wrong(key, QStringLiteral("a non-empty JSON array of strings"), v);
                    return out;
                }
                for (const QJsonValue& item : v.toArray()) {
                    const auto text = configText(fl, item, &wrongType);
                    if (!text) {
                        out.error = QStringLiteral("--config %1: \"%2\" must be an array of "
                                                   "strings, got an item that is %3")
                                        .arg(path, key, jsonTypeName(item));
                        return out;
                    }
                    list << *text;
                }
            } else {
                const auto text = configText(fl, v, &wrongType);
                if (!text) {
                    out.error = wrong(key, wrongType, v);
                    return out;
                }
                list << *text;
            }
            values.insert(QString::fromLatin1(fl.name), list);
            fromConfig.insert(QString::fromLatin1(fl.name), key);
        }
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!known.contains(it.key())) {
                out.error = QStringLiteral("--config %1: unknown key \"%2\"")
                                .arg(path, chain::shownText(it.key()));
                return out;
            }
        const QJsonValue exit = o.value(QLatin1String("exitWhenSynced"));
        if (!exit.isUndefined() && !exit.isBool()) {
            out.error =
                wrong(QStringLiteral("exitWhenSynced"), QStringLiteral("true or false"), exit);
            return out;
        }
        if (exit.toBool())
            values.insert(QStringLiteral("exit-when-synced"), {QStringLiteral("true")});
    }
    for (const Flag& fl : kFlags) {
        const QString name = QString::fromLatin1(fl.name);
        if (!p.isSet(*opts.value(name)))
            continue;
        values.insert(name, p.values(*opts.value(name)));
        fromConfig.remove(name);
    }
    if (p.isSet(exitWhenSynced))
        values.insert(QStringLiteral("exit-when-synced"), {QStringLiteral("true")});

    const auto one = [&](const char* name) {
        return values.value(QString::fromLatin1(name)).value(0);
    };
    for (const char* required : {"rpc", "db", "env"})
        if (!values.contains(QString::fromLatin1(required))) {
            out.error = QStringLiteral("index: --%1 is required").arg(QLatin1String(required));
            return out;
        }
    if (!values.contains(QStringLiteral("contract")) &&
        !values.contains(QStringLiteral("factory"))) {
        out.error = QStringLiteral("index: --contract (or --factory) is required");
        return out;
    }
    // A factory is named by all three, or not at all.
    const bool factory = values.contains(QStringLiteral("factory"));
    for (const char* part : {"factory-event", "child-arg"})
        if (values.contains(QString::fromLatin1(part)) != factory) {
            out.error =
                factory ? QStringLiteral("index: --factory needs --%1").arg(QLatin1String(part))
                        : QStringLiteral("index: --%1 needs --factory").arg(QLatin1String(part));
            return out;
        }

    // An http(s) URL with a host, or a ChainParseError naming the flag.
    const auto httpUrl = [](const char* flag, const QString& text) {
        const auto url = config::httpUrl(text);
        if (!url)
            throw chain::ChainParseError(
                QLatin1String("--") + QLatin1String(flag), text,
                config::validateEndpoint(text).value_or(QStringLiteral("expected an http(s) URL")));
        return *url;
    };
    // A value that must not be empty (an empty --db would be SQLite's temporary database).
    const auto nonEmpty = [&](const char* flag, const QString& expectation) {
        if (one(flag).isEmpty())
            throw chain::ChainParseError(QLatin1String("--") + QLatin1String(flag),
                                         QStringLiteral("\"\""), expectation);
        return one(flag);
    };
    // A whole number within [min, max], or a ChainParseError naming the flag.
    const auto ranged = [&](const char* flag, std::uint64_t min, std::uint64_t max,
                            const QString& expectation = {}) {
        const QString name = QLatin1String("--") + QLatin1String(flag);
        const auto n = number(one(flag), name);
        if (n < min || n > max)
            throw chain::ChainParseError(name, one(flag),
                                         expectation.isEmpty()
                                             ? QStringLiteral("expected %1 to %2").arg(min).arg(max)
                                             : expectation);
        return n;
    };

    indexer::IndexerConfig c;
    try {
        c.rpcUrl = httpUrl("rpc", one("rpc"));
        c.dbPath = nonEmpty("db", QStringLiteral("expected a database file path"));
        c.environmentId = one("env").trimmed();
        if (c.environmentId.isEmpty())
            throw chain::ChainParseError(QStringLiteral("--env"), one("env"),
                                         QStringLiteral("expected a non-empty id"));
        if (values.contains(QStringLiteral("source")))
            c.sourceId = nonEmpty("source", QStringLiteral("expected a non-empty source id"));
        // Repeated, or comma-separated as `lab run` hands them over in {contracts}.
        for (const QString& list : values.value(QStringLiteral("contract")))
            for (const QString& a : list.split(QLatin1Char(','))) {
                const auto addr =
                    chain::Address::fromHex(a.trimmed(), QStringLiteral("--contract"));
                if (!c.contracts.contains(addr))
                    c.contracts.append(addr);
            }
        if (values.contains(QStringLiteral("from-block")))
            c.fromBlock = ranged(
                "from-block", 0, kMaxFromBlock,
                QStringLiteral("expected a block number from 0 to %1 (2^62)").arg(kMaxFromBlock));
        if (values.contains(QStringLiteral("confirmations")))
            c.confirmations = number(one("confirmations"), QStringLiteral("--confirmations"));
        if (values.contains(QStringLiteral("max-reorg-depth")))
            c.maxReorgDepth = number(one("max-reorg-depth"), QStringLiteral("--max-reorg-depth"));
        if (values.contains(QStringLiteral("orphan-retention")))
            c.orphanRetention = qint64(ranged("orphan-retention", 0, 1000000));
        if (values.contains(QStringLiteral("batch-size")))
            c.batchSize = ranged("batch-size", 1, 10000);
        if (values.contains(QStringLiteral("poll-ms")))
            c.pollInterval = std::chrono::milliseconds(ranged("poll-ms", 10, 3600000));
        if (values.contains(QStringLiteral("log-cap")))
            c.logCap = number(one("log-cap"), QStringLiteral("--log-cap"));
        if (values.contains(QStringLiteral("fetch-workers")))
            c.fetchWorkers = int(ranged("fetch-workers", 1, 32));
        if (values.contains(QStringLiteral("logs-per-call")))
            c.logsPerCall = qint64(ranged("logs-per-call", 0, 1000000));
        if (values.contains(QStringLiteral("verify"))) {
            const QString mode = one("verify");
            if (mode == QLatin1String("none"))
                c.completeness = {false, false, false};
            else if (mode == QLatin1String("default"))
                c.completeness = {true, true, false};
            else if (mode == QLatin1String("receipts"))
                c.completeness = {true, true, true};
            else
                throw chain::ChainParseError(QStringLiteral("--verify"), mode,
                                             QStringLiteral("expected default, receipts or none"));
        }
        if (values.contains(QStringLiteral("rpc-timeout-ms")))
            c.rpcTimeout = std::chrono::milliseconds(ranged("rpc-timeout-ms", 100, 600000));
        if (values.contains(QStringLiteral("max-reply-mb")))
            c.maxReplyBytes = qint64(ranged("max-reply-mb", 1, 4096)) * 1024 * 1024;
        c.exitWhenSynced = values.contains(QStringLiteral("exit-when-synced"));
        if (values.contains(QStringLiteral("abi")))
            c.abiPath = nonEmpty("abi", QStringLiteral("expected an ABI file path"));
        if (factory) {
            const auto address =
                chain::Address::fromHex(one("factory"), QStringLiteral("--factory"));
            // An event named without its signature is looked up in the ABI file now, so a
            // wrong name is refused before anything is opened or written.
            std::optional<abi::EventRegistry> abiFile;
            if (!one("factory-event").contains(QLatin1Char('(')) && !c.abiPath.isEmpty())
                abiFile = abi::EventRegistry::fromFile(c.abiPath);
            c.factories.append(wire::FactorySource::resolve(
                address, one("factory-event"), one("child-arg"), abiFile ? &*abiFile : nullptr));
        }
        if (values.contains(QStringLiteral("webhook")) &&
            values.contains(QStringLiteral("outbox-file")))
            throw chain::ChainParseError(
                QStringLiteral("--webhook"), one("webhook"),
                QStringLiteral("choose one outbox sink: --webhook or --outbox-file"));
        if (values.contains(QStringLiteral("webhook")))
            out.webhook = httpUrl("webhook", one("webhook"));
        if (values.contains(QStringLiteral("webhook-timeout-ms")))
            out.webhookTimeout =
                std::chrono::milliseconds(ranged("webhook-timeout-ms", 10, 600000));
        if (values.contains(QStringLiteral("outbox-file")))
            out.outboxFile = nonEmpty("outbox-file", QStringLiteral("expected a file path"));
        if (values.contains(QStringLiteral("webhook-batch"))) {
            if (out.webhook.isEmpty())
                throw chain::ChainParseError(QStringLiteral("--webhook-batch"),
                                             one("webhook-batch"),
                                             QStringLiteral("needs --webhook (a JSON Lines "
                                                            "file always takes whole batches)"));
            out.webhookBatch = int(ranged("webhook-batch", 1, 500));
        }
        for (const QString& n : values.value(QStringLiteral("node")))
            out.nodes.append(httpUrl("node", n));
        if (values.contains(QStringLiteral("ready-ratio"))) {
            const auto r = config::ratio(one("ready-ratio"));
            if (!r)
                throw chain::ChainParseError(
                    QStringLiteral("--ready-ratio"), one("ready-ratio"),
                    QStringLiteral("expected a finite number above 0 and at most 1"));
            out.readyRatio = *r;
        }
        if (values.contains(QStringLiteral("lag-threshold")))
            out.lagThreshold = number(one("lag-threshold"), QStringLiteral("--lag-threshold"));
        if (values.contains(QStringLiteral("check-interval-ms")))
            out.checkInterval = std::chrono::milliseconds(ranged("check-interval-ms", 20, 3600000));
        if (values.contains(QStringLiteral("metrics-port")))
            out.metricsPort = quint16(ranged("metrics-port", 1, 65535,
                                             QStringLiteral("expected a port from 1 to 65535")));
        if (values.contains(QStringLiteral("give-up-after-ms")))
            out.giveUpAfter = std::chrono::milliseconds(ranged("give-up-after-ms", 0, 86400000));
        if (values.contains(QStringLiteral("retry-incomplete-ms")))
            out.retryIncomplete =
                std::chrono::milliseconds(ranged("retry-incomplete-ms", 0, 3600000));
        if (values.contains(QStringLiteral("lease-ms")))
            out.rangeLease = std::chrono::milliseconds(ranged("lease-ms", 100, 3600000));
    } catch (const wire::FactorySourceError& e) {
        out.error = configPath.isEmpty() || !fromConfig.contains(QStringLiteral("factory"))
                        ? e.message()
                        : QStringLiteral("--config %1: %2").arg(configPath, e.message());
        return out;
    } catch (const abi::AbiError& e) {
        out.error = e.message();
        return out;
    } catch (const chain::ChainParseError& e) {
        // A value that came from the file is named by its key there, not by a flag the
        // user never typed.
        const QString key = e.field().startsWith(QLatin1String("--"))
                                ? fromConfig.value(e.field().mid(2))
                                : QString();
        out.error = key.isEmpty() ? e.message()
                                  : QStringLiteral("--config %1: \"%2\": %3, got %4")
                                        .arg(configPath, key, chain::shownText(e.reason(), -1),
                                             chain::shownText(e.value()));
        return out;
    }
    out.config = c;
    return out;
}

} // namespace forkscope::app
