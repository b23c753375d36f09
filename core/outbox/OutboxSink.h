#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::outbox {

struct OutboxRow
{
    qint64 id = 0;
    std::uint64_t blockNumber = 0;
    QString eventKey;
    QByteArray payload; // JSON object
};

struct DeliveryResult
{
    enum class Outcome {
        Delivered, // the sink confirmed every row: mark them delivered_at
        Retry,     // timeout, 5xx, I/O: none counts as delivered; try again later, in order
        Failed,    // permanently refused (HTTP 4xx): none is delivered; see OutboxDispatcher
    };
    Outcome outcome = Outcome::Retry;
    QString detail;
};

// Where outbox rows go. deliver() blocks (it runs on the dispatcher's own thread) and takes
// 1 to maxBatch() rows in delivery order as one unit: it returns Delivered only
// once every one of them is durably accepted on the other side, and anything else means
// the dispatcher records none of them as delivered (they go again, with the same keys).
class OutboxSink
{
public:
    virtual ~OutboxSink() = default;
    virtual QString describe() const = 0;
    // How many rows one deliver() may carry; 1 = one row per call.
    virtual int maxBatch() const { return 1; }
    virtual DeliveryResult deliver(const QList<OutboxRow>& rows) = 0;
};

// The JSON object one row travels as in a JSON Lines file and in a webhook batch:
// {"id":N,"eventKey":"...","blockNumber":N,"payload":{...}} (no trailing newline).
QByteArray rowEnvelope(const OutboxRow& row);

} // namespace forkscope::outbox
