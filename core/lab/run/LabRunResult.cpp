#include "LabRunResult.h"

#include "foreign/ForeignReport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QXmlStreamWriter>

namespace forkscope::lab {

namespace {

constexpr int kLabRunJsonSchemaVersion = 1;

QString auditSummary(const LabRunAudit& a)
{
    if (!a.error.isEmpty())
        return QStringLiteral("could not audit: %1").arg(a.error);
    QStringList parts;
    if (!a.caughtUp)
        parts << QStringLiteral("did not catch up with head %1 within %2 ms%3")
                     .arg(a.head)
                     .arg(a.waitedMs)
                     .arg(a.heldBack ? QStringLiteral(" while the node withheld logs (waiting "
                                                      "is right then)")
                                     : QString());
    if (a.result) {
        const qint64 n = a.result->findingCount();
        parts << (n == 0
                      ? QStringLiteral("blocks %1-%2 clean").arg(a.result->from).arg(a.result->to)
                      : QStringLiteral("blocks %1-%2: %3 %4")
                            .arg(a.result->from)
                            .arg(a.result->to)
                            .arg(n)
                            .arg(n == 1 ? QStringLiteral("finding") : QStringLiteral("findings")));
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace

QString labRunEventLine(const LabRunEvent& e)
{
    return QStringLiteral("%1  %2").arg(e.at.toString(QStringLiteral("HH:mm:ss.zzz")), e.what);
}

bool LabRunResult::passed() const
{
    if (!aborted.isEmpty() || audits.isEmpty())
        return false;
    for (const LabRunAudit& a : audits)
        if (!a.clean())
            return false;
    return true;
}

QString LabRunResult::verdictLine() const
{
    if (!aborted.isEmpty())
        return QStringLiteral("verdict: FAIL (the run stopped: %1)").arg(aborted);
    if (audits.isEmpty())
        return QStringLiteral("verdict: FAIL (nothing was audited)");
    int bad = 0;
    for (const LabRunAudit& a : audits)
        bad += a.clean() ? 0 : 1;
    if (bad == 0)
        return QStringLiteral("verdict: PASS (%1 %2, every one clean)")
            .arg(audits.size())
            .arg(audits.size() == 1 ? QStringLiteral("audit") : QStringLiteral("audits"));
    return QStringLiteral("verdict: FAIL (%1 of %2 audits found something)")
        .arg(bad)
        .arg(audits.size());
}

QByteArray labRunJson(const LabRunResult& r)
{
    QJsonArray timeline;
    for (const LabRunEvent& e : r.timeline)
        timeline.append(QJsonObject{{QStringLiteral("at"), e.at.toString(Qt::ISODateWithMs)},
                                    {QStringLiteral("what"), e.what}});
    QJsonArray audits;
    for (const LabRunAudit& a : r.audits) {
        QJsonObject o{
            {QStringLiteral("step"), a.step},          {QStringLiteral("after"), a.stepDescription},
            {QStringLiteral("head"), qint64(a.head)},  {QStringLiteral("caught_up"), a.caughtUp},
            {QStringLiteral("held_back"), a.heldBack}, {QStringLiteral("waited_ms"), a.waitedMs},
            {QStringLiteral("clean"), a.clean()}};
        if (a.result)
            o.insert(QStringLiteral("audit"),
                     QJsonDocument::fromJson(foreign::auditJson(*a.result)).object());
        if (!a.error.isEmpty())
            o.insert(QStringLiteral("error"), a.error);
        audits.append(o);
    }
    QJsonObject root{{QStringLiteral("schema"), kLabRunJsonSchemaVersion},
                     {QStringLiteral("scenario"), r.scenario},
                     {QStringLiteral("seed"), qint64(r.seed)},
                     {QStringLiteral("indexer"), r.indexerCommand},
                     {QStringLiteral("node"), r.node},
                     {QStringLiteral("database"), r.database},
                     {QStringLiteral("query"), r.query},
                     {QStringLiteral("passed"), r.passed()},
                     {QStringLiteral("verdict"), r.verdictLine()},
                     {QStringLiteral("timeline"), timeline},
                     {QStringLiteral("audits"), audits}};
    if (!r.aborted.isEmpty())
        root.insert(QStringLiteral("aborted"), r.aborted);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray labRunJunit(const LabRunResult& r)
{
    QByteArray out;
    QXmlStreamWriter w(&out);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    int failures = 0;
    for (const LabRunAudit& a : r.audits)
        failures += a.clean() ? 0 : 1;
    const bool abortedCase = !r.aborted.isEmpty();
    w.writeStartElement(QStringLiteral("testsuite"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("forkscope lab run ") + r.scenario);
    w.writeAttribute(QStringLiteral("tests"),
                     QString::number(r.audits.size() + (abortedCase ? 1 : 0)));
    w.writeAttribute(QStringLiteral("failures"), QString::number(failures + (abortedCase ? 1 : 0)));
    for (const LabRunAudit& a : r.audits) {
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), QStringLiteral("lab.") + r.scenario);
        w.writeAttribute(QStringLiteral("name"),
                         QStringLiteral("after step %1: %2").arg(a.step).arg(a.stepDescription));
        if (!a.clean()) {
            w.writeStartElement(QStringLiteral("failure"));
            w.writeAttribute(QStringLiteral("message"), auditSummary(a));
            QStringList lines;
            if (a.result)
                for (const foreign::ForeignFinding& f : a.result->findings)
                    lines << f.describe();
            w.writeCharacters(lines.join(QLatin1Char('\n')));
            w.writeEndElement();
        }
        w.writeEndElement();
    }
    if (abortedCase) {
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), QStringLiteral("lab.") + r.scenario);
        w.writeAttribute(QStringLiteral("name"), QStringLiteral("the run"));
        w.writeStartElement(QStringLiteral("failure"));
        w.writeAttribute(QStringLiteral("message"), r.aborted);
        w.writeEndElement();
        w.writeEndElement();
    }
    w.writeEndElement();
    w.writeEndDocument();
    return out;
}

QString labRunText(const LabRunResult& r, bool withTimeline)
{
    QStringList lines;
    if (withTimeline) {
        lines << QStringLiteral("scenario %1, seed %2; indexer: %3")
                     .arg(r.scenario)
                     .arg(r.seed)
                     .arg(r.indexerCommand);
        for (const LabRunEvent& e : r.timeline)
            lines << labRunEventLine(e);
    }
    for (const LabRunAudit& a : r.audits) {
        lines << QStringLiteral("audit after step %1 (%2): %3")
                     .arg(a.step)
                     .arg(a.stepDescription, auditSummary(a));
        if (a.result)
            for (const foreign::ForeignFinding& f : a.result->findings.mid(0, 20))
                lines << QStringLiteral("  ") + f.describe();
    }
    lines << r.verdictLine();
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace forkscope::lab
