#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QStringList>
#include <QUrl>

namespace forkscope::test {

// A client of the local API (`forkscope index --metrics-port P`) as a user's script is one:
// plain HTTP, waiting with the event loop running; and the Prometheus text format's rules.
// Header-only: test code is built with Qt's casts from ASCII, the support library without.
struct HttpResult
{
    int status = 0; // 0: no answer within the wait
    QByteArray body;
};

inline HttpResult http(const QUrl& url, const QByteArray& post = {}, bool isPost = false)
{
    QNetworkAccessManager nam;
    QNetworkRequest req(url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply* r = isPost ? nam.post(req, post) : nam.get(req);
    QSignalSpy done(r, &QNetworkReply::finished);
    done.wait(10000);
    HttpResult out{r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), r->readAll()};
    r->deleteLater();
    return out;
}

inline QJsonObject apiCall(const QUrl& base, const QString& method, const QJsonArray& params = {})
{
    const QJsonObject req{{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}};
    return QJsonDocument::fromJson(http(base, QJsonDocument(req).toJson(), true).body).object();
}

// Checks the text exposition format; returns the problems found.
inline QStringList checkPrometheusText(const QByteArray& text, QHash<QString, double>* samples)
{
    QStringList problems;
    static const QRegularExpression name("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
    static const QRegularExpression sampleLine(
        R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*)\})? (-?[0-9.eE+-]+|\+Inf|-Inf|NaN)$)");
    QHash<QString, QString> types;
    QSet<QString> helped;
    if (!text.endsWith('\n'))
        problems << "text does not end with a newline";
    for (const QByteArray& raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (line.isEmpty())
            continue;
        if (line.startsWith("# HELP ")) {
            const QString n = line.section(' ', 2, 2);
            if (!name.match(n).hasMatch() || helped.contains(n))
                problems << "bad or repeated HELP: " + line;
            helped.insert(n);
        } else if (line.startsWith("# TYPE ")) {
            const QString n = line.section(' ', 2, 2);
            const QString t = line.section(' ', 3, 3);
            if (!QStringList{"counter", "gauge", "histogram", "summary", "untyped"}.contains(t) ||
                types.contains(n))
                problems << "bad or repeated TYPE: " + line;
            types.insert(n, t);
        } else if (line.startsWith('#')) {
            continue;
        } else {
            const auto m = sampleLine.match(line);
            if (!m.hasMatch()) {
                problems << "bad sample line: " + line;
                continue;
            }
            QString family = m.captured(1);
            for (const char* suffix : {"_bucket", "_sum", "_count"})
                if (!types.contains(family) && family.endsWith(suffix))
                    family.chop(int(strlen(suffix)));
            if (!types.contains(family))
                problems << "sample before its TYPE: " + line;
            if (family.endsWith("_total") && types.value(family) != "counter")
                problems << "_total that is not a counter: " + family;
            samples->insert(m.captured(1) + m.captured(2),
                            m.captured(5) == "+Inf" ? qInf() : m.captured(5).toDouble());
        }
    }
    return problems;
}

} // namespace forkscope::test
