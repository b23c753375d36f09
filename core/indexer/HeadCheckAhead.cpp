#include "HeadCheckAhead.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"

#include <QDeadlineTimer>
#include <QMutex>
#include <QWaitCondition>

namespace forkscope::indexer {

struct HeadCheckAhead::Mailbox
{
    QMutex mutex;
    QWaitCondition arrived;
    quint64 ticket = 0; // the question the answer below is for
    std::optional<rpc::HeadCheck> answer;
    std::optional<rpc::RpcError> error;
};

namespace {

// Lives on the check's thread, driven by its event loop: each question is an asynchronous
// call whose reply is read when it finishes, so the loop never blocks and never nests.
class HeadCheckWorker : public QObject
{
public:
    HeadCheckWorker(const QUrl& endpoint, std::chrono::milliseconds timeout,
                    std::shared_ptr<HeadCheckAhead::Mailbox> mailbox)
        : m_endpoint(endpoint), m_timeout(timeout), m_mailbox(std::move(mailbox))
    {
    }

    void ask(quint64 ticket, std::uint64_t number)
    {
        if (!m_rpc) { // created here: Qt's network objects belong to the thread that made them
            m_rpc = std::make_unique<rpc::JsonRpcClient>(m_endpoint);
            m_rpc->setTimeout(m_timeout);
            m_eth = std::make_unique<rpc::EthClient>(*m_rpc);
        }
        rpc::RpcCall* call = m_eth->requestHeadCheck(number);
        // Queued: the call is read and deleted after it has finished emitting, not inside.
        connect(
            call, &rpc::RpcCall::finished, this,
            [this, call, ticket, number] {
                std::optional<rpc::HeadCheck> answer;
                std::optional<rpc::RpcError> error;
                try {
                    answer = m_eth->takeHeadCheck(call, number); // finished: it does not wait
                } catch (const rpc::RpcException& e) {
                    error = e.error();
                } catch (const std::exception& e) { // nothing may escape into the event loop
                    error = rpc::RpcError{rpc::RpcError::Kind::Malformed,
                                          QStringLiteral("eth_getBlockByNumber"),
                                          m_endpoint.toString(QUrl::RemoveUserInfo),
                                          0,
                                          0,
                                          QString::fromUtf8(e.what()),
                                          {}};
                }
                QMutexLocker lock(&m_mailbox->mutex);
                if (ticket < m_mailbox->ticket)
                    return; // a question replaced since, answered late: only the newest counts
                m_mailbox->ticket = ticket;
                m_mailbox->answer = std::move(answer);
                m_mailbox->error = std::move(error);
                m_mailbox->arrived.wakeAll();
            },
            Qt::QueuedConnection);
    }

private:
    const QUrl m_endpoint;
    const std::chrono::milliseconds m_timeout;
    const std::shared_ptr<HeadCheckAhead::Mailbox> m_mailbox;
    std::unique_ptr<rpc::JsonRpcClient> m_rpc;
    std::unique_ptr<rpc::EthClient> m_eth;
};

} // namespace

HeadCheckAhead::HeadCheckAhead(QUrl endpoint, std::chrono::milliseconds rpcTimeout,
                               concurrency::StopTokenPtr stop)
    : m_endpoint(std::move(endpoint)), m_timeout(rpcTimeout), m_stop(std::move(stop)),
      m_mailbox(std::make_shared<Mailbox>())
{
    m_worker = m_thread.start(new HeadCheckWorker(m_endpoint, m_timeout, m_mailbox));
}

HeadCheckAhead::~HeadCheckAhead() = default;

void HeadCheckAhead::ask(std::uint64_t number, const chain::Hash32& hash)
{
    const quint64 ticket = ++m_lastTicket; // never reused: an old answer never passes for a new one
    m_ticket = ticket;
    m_number = number;
    m_hash = hash;
    auto* worker = static_cast<HeadCheckWorker*>(m_worker);
    QMetaObject::invokeMethod(
        worker, [worker, ticket, number] { worker->ask(ticket, number); }, Qt::QueuedConnection);
}

std::optional<rpc::HeadCheck> HeadCheckAhead::takeFor(const Checkpoint& cp)
{
    const quint64 ticket = std::exchange(m_ticket, 0);
    if (ticket == 0 || cp.number != m_number || cp.hash != m_hash)
        return std::nullopt; // its answer, if it comes, carries a ticket nobody waits for
    const auto fail = [this](rpc::RpcError::Kind kind, const QString& message) {
        return rpc::RpcException(rpc::RpcError{kind,
                                               QStringLiteral("eth_blockNumber"),
                                               m_endpoint.toString(QUrl::RemoveUserInfo),
                                               0,
                                               0,
                                               message,
                                               {}});
    };
    // The worker's client times the call out itself; this deadline only guards against a
    // worker that never answers.
    QDeadlineTimer deadline(m_timeout + std::chrono::seconds(5));
    QMutexLocker lock(&m_mailbox->mutex);
    while (m_mailbox->ticket != ticket) {
        if (m_stop && m_stop->stopRequested())
            throw fail(rpc::RpcError::Kind::Cancelled,
                       QStringLiteral("stopped while waiting for the head check"));
        if (deadline.hasExpired())
            throw fail(rpc::RpcError::Kind::Timeout,
                       QStringLiteral("no answer to the head check within %1 ms")
                           .arg(m_timeout.count() + 5000));
        // Short waits, so a stop request is seen within ~25 ms (as JsonRpcClient::waitFor).
        m_mailbox->arrived.wait(&m_mailbox->mutex, QDeadlineTimer(25));
    }
    if (m_mailbox->error)
        throw rpc::RpcException(*m_mailbox->error);
    return std::move(m_mailbox->answer);
}

} // namespace forkscope::indexer
