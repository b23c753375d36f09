#include "OutboxSink.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace forkscope::outbox {

namespace {
QByteArray jsonString(const QString& s)
{
    // Event keys are ours (transfer:/retract: with digits and hex), but a JSON string
    // is escaped properly rather than trusted to need no escaping.
    const QByteArray array = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}
} // namespace

QByteArray rowEnvelope(const OutboxRow& row)
{
    // The payload is a JSON object the indexer wrote; it goes in as it is stored.
    return "{\"id\":" + QByteArray::number(row.id) + ",\"eventKey\":" + jsonString(row.eventKey) +
           ",\"blockNumber\":" + QByteArray::number(row.blockNumber) +
           ",\"payload\":" + row.payload + '}';
}

} // namespace forkscope::outbox
