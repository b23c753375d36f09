#pragma once

#include "OutboxSink.h"

#include <QFile>

namespace forkscope::outbox {

// Appends one JSON object per line ({"id", "eventKey", "blockNumber", "payload"}) and
// flushes to the OS before confirming.
class JsonLinesSink : public OutboxSink
{
public:
    explicit JsonLinesSink(QString path) : m_path(std::move(path)) {}
    QString describe() const override { return QStringLiteral("file %1").arg(m_path); }
    DeliveryResult deliver(const OutboxRow& row) override;

private:
    QString m_path;
    QFile m_file;
};

} // namespace forkscope::outbox
