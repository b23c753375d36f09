#pragma once

#include "DevnetError.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QUrl>
#include <chrono>
#include <memory>

class QTemporaryDir;

namespace forkscope::lab {

// A managed anvil process on a loopback port: what the app's lab and every integration
// test run against. start() blocks until the node answers eth_chainId, so call it on a
// worker thread in GUI code.
//
// The anvil binary is looked up, in order, at:
//   1. $FORKSCOPE_ANVIL (an error if set but not executable),
//   2. the npm install made by packaging/bootstrap.sh
//      (<source>/.deps/anvil/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil),
//   3. <install prefix>/libexec/forkscope/anvil, next to an installed forkscope,
//   4. `anvil` on PATH.
class Devnet : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        quint16 port = 0; // 0 = pick a free loopback port
        quint64 chainId = 31337;
        int blockTimeSeconds = 0; // 0 = mine one block per transaction
        QStringList extraArgs;
        std::chrono::milliseconds startTimeout{30000};
    };

    explicit Devnet(QObject* parent = nullptr);
    ~Devnet() override;

    // Path of the anvil binary to run; throws DevnetError listing where it looked.
    static QString locateAnvil();
    static quint16 findFreePort();

    void start(const Options& options);
    void start() { start(Options{}); }
    void stop();

    bool isRunning() const;
    QUrl url() const { return m_url; }
    quint16 port() const { return m_port; }
    qint64 processId() const;
    QString logPath() const { return m_logPath; }
    // Where anvil persists old block states while it runs (removed by stop()).
    QString stateCachePath() const;
    // The last lines anvil printed, for error messages.
    QString logTail(int maxLines = 15) const;

signals:
    // anvil exited without stop() being called.
    void exitedUnexpectedly(int exitCode, const QString& logTail);

private:
    bool waitUntilAnswering(std::chrono::milliseconds timeout, quint64 expectedChainId);

    QProcess* m_process = nullptr;
    QUrl m_url;
    quint16 m_port = 0;
    QString m_logPath;
    // anvil keeps the newest states in memory and writes older ones under --cache-path
    // (default ~/.foundry/anvil/tmp) but never deletes them, not even on a clean SIGTERM or
    // SIGINT: about 1.8 GB per 2,000 busy blocks left in the user's home for every run.
    // Each devnet gets a directory of its own that stop() removes with anvil gone.
    std::unique_ptr<QTemporaryDir> m_stateCache;
    bool m_stopping = false;
};

} // namespace forkscope::lab
