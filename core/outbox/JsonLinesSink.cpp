#include "JsonLinesSink.h"

namespace forkscope::outbox {

DeliveryResult JsonLinesSink::deliver(const OutboxRow& row)
{
    if (!m_file.isOpen()) {
        m_file.setFileName(m_path);
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::Append))
            return {DeliveryResult::Outcome::Retry,
                    QStringLiteral("cannot open %1: %2").arg(m_path, m_file.errorString())};
    }
    const QByteArray line = "{\"id\":" + QByteArray::number(row.id) + ",\"eventKey\":\"" +
                            row.eventKey.toUtf8() +
                            "\",\"blockNumber\":" + QByteArray::number(row.blockNumber) +
                            ",\"payload\":" + row.payload + "}\n";
    if (m_file.write(line) != line.size() || !m_file.flush()) {
        const QString err = m_file.errorString();
        m_file.close();
        return {DeliveryResult::Outcome::Retry,
                QStringLiteral("write to %1 failed: %2").arg(m_path, err)};
    }
    return {DeliveryResult::Outcome::Delivered, {}};
}

} // namespace forkscope::outbox
