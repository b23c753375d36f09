#include "SettingsValidation.h"
#include "abi/EventRegistry.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <QRegularExpression>
#include <QUrl>
#include <cmath>

namespace forkscope::config {

std::optional<QUrl> httpUrl(const QString& text)
{
    const QUrl url(text, QUrl::StrictMode);
    // Port 0 asks the OS for any free port when listening; nothing listens on it, so a
    // node URL naming it would be retried forever.
    if (!url.isValid() || url.host().isEmpty() || url.port() == 0 ||
        (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return std::nullopt;
    return url;
}

std::optional<QString> validateEndpoint(const QString& text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return QStringLiteral("endpoint: enter a URL such as http://127.0.0.1:8545");
    if (httpUrl(t))
        return std::nullopt;
    const QUrl url(t, QUrl::StrictMode);
    // Quoted on one line whatever it holds: it may come from a file or a flag.
    const QString shown = chain::shownText(t);
    if (!url.isValid() || url.host().isEmpty())
        return QStringLiteral("\"%1\" is not an http(s) URL such as http://127.0.0.1:8545")
            .arg(shown);
    if (url.port() == 0)
        return QStringLiteral("\"%1\" names port 0, where nothing can listen; give the node's "
                              "port (1-65535)")
            .arg(shown);
    return QStringLiteral("\"%1\" is not an http(s) URL: it must start with http:// or https://")
        .arg(shown);
}

std::optional<QString> validatePostgresUrl(const QString& text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return QStringLiteral("enter a URL such as postgresql://postgres@127.0.0.1:5432/forkscope");
    const QUrl url(t, QUrl::StrictMode);
    const QString shown =
        url.isValid() ? url.toString(QUrl::RemovePassword) : QStringLiteral("the URL");
    if (!url.isValid() || (url.scheme().toLower() != QLatin1String("postgresql") &&
                           url.scheme().toLower() != QLatin1String("postgres")))
        return QStringLiteral("%1 is not a postgresql:// URL").arg(shown);
    // libpq takes host=/path/to/socket in the query for a unix socket.
    if (url.host().isEmpty() && !url.query().contains(QLatin1String("host=")))
        return QStringLiteral("%1 names no host").arg(shown);
    if (url.path().size() < 2)
        return QStringLiteral("%1 names no database (…/dbname)").arg(shown);
    return std::nullopt;
}

std::optional<QString> validateEnvironmentId(const QString& text)
{
    static const QRegularExpression kId(QStringLiteral("^[A-Za-z0-9._:-]{1,64}$"));
    const QString t = text.trimmed();
    if (kId.match(t).hasMatch())
        return std::nullopt;
    return QStringLiteral("environment \"%1\": use 1 to 64 letters, digits, '.', '_', ':' or "
                          "'-'")
        .arg(t);
}

std::optional<QString> validateAddress(const QString& text)
{
    try {
        chain::Address::fromHex(text.trimmed(), QStringLiteral("contract"));
        return std::nullopt;
    } catch (const chain::ChainParseError& e) {
        return e.message();
    }
}

std::optional<QString> validateAbiFile(const QString& path)
{
    if (path.trimmed().isEmpty())
        return std::nullopt; // optional: Transfer projection only
    try {
        const auto registry = abi::EventRegistry::fromFile(path.trimmed());
        if (registry.eventCount() == 0)
            return QStringLiteral("ABI file %1 declares no events").arg(path.trimmed());
        return std::nullopt;
    } catch (const abi::AbiError& e) {
        return e.message();
    }
}

std::optional<QString> validateWholeNumber(const QString& text, const QString& field, quint64 min,
                                           quint64 max)
{
    try {
        const auto v = chain::hex::parseDecimalU63(text.trimmed(), field);
        if (v < min || v > max)
            return QStringLiteral("%1 must be from %2 to %3, got %4")
                .arg(field)
                .arg(min)
                .arg(max)
                .arg(v);
        return std::nullopt;
    } catch (const chain::ChainParseError& e) {
        return e.message();
    }
}

std::optional<double> ratio(const QString& text)
{
    bool ok = false;
    const double r = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(r) || r <= 0 || r > 1)
        return std::nullopt;
    return r;
}

std::optional<QString> validateRatio(const QString& text)
{
    if (!ratio(text))
        return QStringLiteral("ready ratio must be a number above 0 and at most 1, got \"%1\"")
            .arg(text.trimmed());
    return std::nullopt;
}

} // namespace forkscope::config
