#pragma once

#include "OutboxSink.h"

#include <QFile>

namespace forkscope::outbox {

// Appends one JSON object per line (rowEnvelope: {"id", "eventKey", "blockNumber",
// "payload"}). A whole batch of up to kMaxBatch rows goes out in one write, one flush and
// one fsync before it is confirmed, so a confirmed line survives a crash of the machine,
// not only of the process, and the fsync is paid once per batch, not once per row. A
// write that fails is cut back to where the batch began, so the file never keeps a torn
// line (a pipe or terminal can be neither synced nor cut back); the batch is then retried
// whole.
class JsonLinesSink : public OutboxSink
{
public:
    // Bounds one write (a transfer's line is about 450 bytes: about 225 KB) and the rows
    // a crash can make the next run append twice.
    static constexpr int kMaxBatch = 500;

    explicit JsonLinesSink(QString path) : m_path(std::move(path)) {}
    QString describe() const override { return QStringLiteral("file %1").arg(m_path); }
    int maxBatch() const override { return kMaxBatch; }
    DeliveryResult deliver(const QList<OutboxRow>& rows) override;

private:
    QString m_path;
    QFile m_file;
};

} // namespace forkscope::outbox
