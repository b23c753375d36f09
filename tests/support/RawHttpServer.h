#pragma once

#include <QByteArray>
#include <QTcpServer>
#include <QUrl>

namespace forkscope::test {

// A tiny loopback HTTP server for fault cases a real node will not produce: it answers
// every request with a fixed raw body and status, or (Mode::Silent) accepts the
// connection and never answers.
class RawHttpServer : public QTcpServer
{
    Q_OBJECT
public:
    // Raw: writes the bytes given to respondRaw() verbatim and keeps the connection open
    // (a lying Content-Length, a chunked stream that never ends).
    enum class Mode { Respond, Silent, Raw };

    explicit RawHttpServer(QObject* parent = nullptr);
    void respondWith(int status, const QByteArray& body,
                     const QByteArray& contentType = "application/json");
    void respondRaw(const QByteArray& bytes)
    {
        m_mode = Mode::Raw;
        m_body = bytes;
    }
    void setMode(Mode m) { m_mode = m; }
    QUrl url() const;
    int requestCount() const { return m_requests; }
    QByteArray lastRequestBody() const { return m_lastBody; }

private:
    void onConnection();

    Mode m_mode = Mode::Respond;
    int m_status = 200;
    QByteArray m_body;
    QByteArray m_contentType;
    int m_requests = 0;
    QByteArray m_lastBody;
};

} // namespace forkscope::test
