#include "ForeignReport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QXmlStreamWriter>

namespace forkscope::foreign {

namespace {
constexpr ForeignFinding::Kind kKinds[] = {
    ForeignFinding::Kind::Missing,    ForeignFinding::Kind::Extra,
    ForeignFinding::Kind::Duplicated, ForeignFinding::Kind::Altered,
    ForeignFinding::Kind::Orphaned,   ForeignFinding::Kind::WrongBalance,
};

QJsonObject findingJson(const ForeignFinding& f)
{
    QJsonObject o{{QStringLiteral("kind"), kindName(f.kind)},
                  {QStringLiteral("block"), qint64(f.block)},
                  {QStringLiteral("text"), f.describe()}};
    if (f.logIndex)
        o.insert(QStringLiteral("log_index"), qint64(*f.logIndex));
    if (!f.txHash.isEmpty())
        o.insert(QStringLiteral("tx_hash"), f.txHash);
    if (!f.contract.isEmpty())
        o.insert(QStringLiteral("contract"), f.contract);
    if (!f.holder.isEmpty())
        o.insert(QStringLiteral("holder"), f.holder);
    if (!f.row.isEmpty())
        o.insert(QStringLiteral("row"), f.row);
    if (!f.fields.isEmpty())
        o.insert(QStringLiteral("fields"), QJsonArray::fromStringList(f.fields));
    if (!f.detail.isEmpty())
        o.insert(QStringLiteral("detail"), f.detail);
    return o;
}
} // namespace

QByteArray auditJson(const ForeignAuditResult& r)
{
    QJsonObject counts;
    for (ForeignFinding::Kind k : kKinds)
        counts.insert(kindName(k), r.count(k));
    QJsonArray findings;
    for (const ForeignFinding& f : r.findings)
        findings.append(findingJson(f));
    QJsonObject checked{
        {QStringLiteral("blocks"), r.blocksChecked},
        {QStringLiteral("rows"), r.rowsRead},
        {QStringLiteral("rows_of_other_contracts"), r.rowsOfOtherContracts},
        {QStringLiteral("node_transfers"), r.nodeTransfers},
        {QStringLiteral("blocks_with_transfers"), r.blocksWithTransfers},
        {QStringLiteral("get_logs_calls"), r.getLogsCalls},
        {QStringLiteral("by_hash_fetches"), r.byHashFetches},
        {QStringLiteral("bloom_suspects"), r.bloomSuspects},
        {QStringLiteral("bloom_false_positives"), r.bloomFalsePositives},
        {QStringLiteral("proven_blocks"), r.provenBlocks},
        {QStringLiteral("balances"), r.balancesChecked},
        {QStringLiteral("fields"), QJsonArray::fromStringList(r.compared)},
    };
    QJsonObject o{
        {QStringLiteral("schema_version"), kAuditJsonSchemaVersion},
        {QStringLiteral("target"), r.target},
        {QStringLiteral("query"), r.query},
        {QStringLiteral("node"), r.node},
        {QStringLiteral("contracts"), QJsonArray::fromStringList(r.contracts)},
        {QStringLiteral("from_block"), qint64(r.from)},
        {QStringLiteral("to_block"), qint64(r.to)},
        {QStringLiteral("proof"),
         r.proofName.isEmpty() ? QStringLiteral("bloom") : QStringLiteral("receipts")},
        {QStringLiteral("checked"), checked},
        {QStringLiteral("clean"), r.clean()},
        {QStringLiteral("finding_count"), r.findingCount()},
        {QStringLiteral("counts"), counts},
        {QStringLiteral("findings"), findings},
    };
    if (r.rowsAboveTo)
        o.insert(QStringLiteral("rows_above_not_audited"), qint64(*r.rowsAboveTo));
    if (!r.factory.isEmpty()) {
        o.insert(QStringLiteral("factory"), r.factory);
        o.insert(QStringLiteral("children"), r.children);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QByteArray auditJunit(const ForeignAuditResult& r)
{
    QByteArray out;
    QXmlStreamWriter w(&out);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    w.writeStartElement(QStringLiteral("testsuites"));
    w.writeStartElement(QStringLiteral("testsuite"));
    w.writeAttribute(
        QStringLiteral("name"),
        QStringLiteral("forkscope audit %1 blocks %2..%3").arg(r.target).arg(r.from).arg(r.to));
    int failing = 0;
    for (ForeignFinding::Kind k : kKinds)
        failing += r.count(k) > 0 ? 1 : 0;
    w.writeAttribute(QStringLiteral("tests"), QString::number(std::size(kKinds)));
    w.writeAttribute(QStringLiteral("failures"), QString::number(failing));
    w.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
    for (ForeignFinding::Kind k : kKinds) {
        w.writeStartElement(QStringLiteral("testcase"));
        w.writeAttribute(QStringLiteral("classname"), QStringLiteral("forkscope.audit"));
        w.writeAttribute(QStringLiteral("name"),
                         QStringLiteral("%1: %2").arg(kindName(k), kindTitle(k)));
        if (r.count(k) > 0) {
            QStringList lines;
            for (const ForeignFinding& f : r.findings)
                if (f.kind == k)
                    lines << f.describe();
            if (r.count(k) > lines.size())
                lines << QStringLiteral("... and %1 more").arg(r.count(k) - lines.size());
            w.writeStartElement(QStringLiteral("failure"));
            w.writeAttribute(QStringLiteral("type"), kindName(k));
            w.writeAttribute(QStringLiteral("message"),
                             QStringLiteral("%1 %2 findings in blocks %3..%4")
                                 .arg(r.count(k))
                                 .arg(kindName(k))
                                 .arg(r.from)
                                 .arg(r.to));
            w.writeCharacters(lines.join(QLatin1Char('\n')));
            w.writeEndElement();
        }
        w.writeEndElement();
    }
    w.writeEndElement();
    w.writeEndElement();
    w.writeEndDocument();
    return out;
}

} // namespace forkscope::foreign
