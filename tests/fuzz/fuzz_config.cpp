// The config file reader: `forkscope index --config FILE` (app/IndexOptions.cpp) and the
// validators of core/config that the settings dialog shares with it. The input is the
// file. It gives a configuration or one error line naming the file, and never both; an
// accepted configuration holds what the flags promise; and every string in the file, run
// through the validators, gets a verdict that agrees with the parser each one wraps.

#include "FuzzSupport.h"
#include "IndexOptions.h"
#include "config/SettingsValidation.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace config = forkscope::config;

namespace {

QString configPath()
{
    static const QString path = QDir::temp().filePath(
        QStringLiteral("forkscope-fuzz-config-%1.json").arg(QCoreApplication::applicationPid()));
    return path;
}

void collectStrings(const QJsonValue& v, QStringList& out)
{
    if (v.isString())
        out << v.toString();
    else if (v.isArray())
        for (const QJsonValue& x : v.toArray())
            collectStrings(x, out);
    else if (v.isObject())
        for (const QJsonValue& x : v.toObject())
            collectStrings(x, out);
}

void validate(const QString& s)
{
    const auto refusal = [&](const std::optional<QString>& verdict) {
        FUZZ_CHECK(!verdict || !verdict->isEmpty(), s);
    };
    const std::optional<QString> endpoint = config::validateEndpoint(s);
    refusal(endpoint);
    FUZZ_CHECK(!endpoint == config::httpUrl(s.trimmed()).has_value(), s);
    refusal(config::validatePostgresUrl(s));
    refusal(config::validateAddress(s));
    refusal(config::validateEnvironmentId(s));
    refusal(config::validateWholeNumber(s, QStringLiteral("n"), 1, 10000));
    const std::optional<QString> ratio = config::validateRatio(s);
    refusal(ratio);
    FUZZ_CHECK(!ratio == config::ratio(s).has_value(), s);
    if (const auto r = config::ratio(s))
        FUZZ_CHECK(*r > 0 && *r <= 1, s);
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray file = forkscope::fuzz::bytes(data, size);
    {
        QFile f(configPath());
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(file) != file.size())
            std::abort(); // the machine, not a finding
    }
    const forkscope::app::IndexOptionsResult r =
        forkscope::app::parseIndexOptions({QStringLiteral("forkscope"), QStringLiteral("index"),
                                           QStringLiteral("--config"), configPath()});
    FUZZ_CHECK(r.config.has_value() == r.error.isEmpty(), r.error);
    FUZZ_CHECK(!r.helpRequested, r.error);
    if (r.config) {
        const auto& c = *r.config;
        FUZZ_CHECK(config::httpUrl(c.rpcUrl.toString()).has_value(), c.rpcUrl.toString());
        FUZZ_CHECK(!c.dbPath.isEmpty() && !c.environmentId.trimmed().isEmpty(), c.dbPath);
        FUZZ_CHECK(!c.contracts.isEmpty(), c.environmentId);
        FUZZ_CHECK(c.fromBlock <= (std::uint64_t(1) << 62), QString::number(c.fromBlock));
        FUZZ_CHECK(c.batchSize >= 1 && c.batchSize <= 10000, QString::number(c.batchSize));
        FUZZ_CHECK(c.fetchWorkers >= 1 && c.fetchWorkers <= 32, QString::number(c.fetchWorkers));
        FUZZ_CHECK(r.readyRatio > 0 && r.readyRatio <= 1, QString::number(r.readyRatio));
        FUZZ_CHECK(r.webhook.isEmpty() || r.outboxFile.isEmpty(), r.outboxFile);
        FUZZ_CHECK(r.webhookBatch >= 1 && r.webhookBatch <= 500, QString::number(r.webhookBatch));
    } else {
        FUZZ_CHECK(forkscope::fuzz::isOneLine(r.error), r.error);
        FUZZ_CHECK(r.error.startsWith(QStringLiteral("--config ")) ||
                       r.error.startsWith(QStringLiteral("index: --")) ||
                       r.error.startsWith(QStringLiteral("--")),
                   r.error);
    }
    QStringList strings;
    collectStrings(QJsonDocument::fromJson(file).object(), strings);
    for (const QString& s : std::as_const(strings).first(std::min<qsizetype>(strings.size(), 32)))
        validate(s);
    return 0;
}
