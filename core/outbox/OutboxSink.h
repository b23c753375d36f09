#pragma once

#include <QByteArray>
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
        Delivered, // the sink confirmed: mark delivered_at
        Retry,     // timeout, 5xx, I/O: try again later, in order
        Failed,    // permanently refused (HTTP 4xx): mark failed and show it
    };
    Outcome outcome = Outcome::Retry;
    QString detail;
};

// Where outbox rows go. deliver() blocks (it runs on the dispatcher's own thread) and must
// only return Delivered once the row is durably accepted on the other side.
class OutboxSink
{
public:
    virtual ~OutboxSink() = default;
    virtual QString describe() const = 0;
    virtual DeliveryResult deliver(const OutboxRow& row) = 0;
};

} // namespace forkscope::outbox
