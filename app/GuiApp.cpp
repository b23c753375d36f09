#include "GuiApp.h"
#include "CommandLine.h"
#include "MainWindow.h"
#include "ScreenshotScene.h"
#include "UnixSignalWatcher.h"
#include "config/AppSettings.h"
#include "config/SettingsValidation.h"
#include "engine/EngineHost.h"
#include "engine/SettingsToConfig.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>
#include <cstdio>

#include "forkscope_version.h"

namespace forkscope::app {

int runGui(int& argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("forkscope"));
    QApplication::setOrganizationName(QStringLiteral("Forkscope"));
    QApplication::setApplicationVersion(QStringLiteral(FORKSCOPE_VERSION));
    // Lets the desktop (Wayland especially) match windows to the installed .desktop entry
    // and its icon; the bundled PNG covers running from the build tree.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.forkscope.Forkscope"));
    QApplication::setWindowIcon(QIcon::fromTheme(
        QStringLiteral("io.github.forkscope.Forkscope"),
        QIcon(QStringLiteral(":/forkscope/icons/io.github.forkscope.Forkscope.png"))));

    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Forkscope desktop app."));
    p.addHelpOption();
    QCommandLineOption db(QStringLiteral("db"),
                          QStringLiteral("SQLite database file, or the postgresql:// URL of a "
                                         "PostgreSQL database."),
                          QStringLiteral("FILE|URL"));
    QCommandLineOption rpc(QStringLiteral("rpc"),
                           QStringLiteral("JSON-RPC endpoint to watch instead of a managed anvil."),
                           QStringLiteral("URL"));
    QCommandLineOption env(QStringLiteral("env"),
                           QStringLiteral("Environment id to index into (default: \"default\" "
                                          "for --rpc, a new lab-<UTC time> for the managed lab)."),
                           QStringLiteral("ID"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window after --screenshot-after-ms, then quit."),
        QStringLiteral("FILE"));
    QCommandLineOption screenshotAfter(
        QStringLiteral("screenshot-after-ms"),
        QStringLiteral("Least delay before --screenshot (default 15000)."), QStringLiteral("MS"),
        QStringLiteral("15000"));
    QCommandLineOption screenshotScene(
        QStringLiteral("screenshot-scene"),
        QStringLiteral("What --screenshot shows, at 1280x720: %1 (default synced).")
            .arg(ScreenshotScene::names().join(QStringLiteral(", "))),
        QStringLiteral("NAME"), QStringLiteral("synced"));
    QCommandLineOption demo(
        QStringLiteral("demo-transfers"),
        QStringLiteral("Demo traffic of the managed lab, transfers a second (1-200, default 10)."),
        QStringLiteral("N"));
    p.addOption(demo);
    p.addOption(db);
    p.addOption(rpc);
    p.addOption(env);
    p.addOption(screenshot);
    p.addOption(screenshotAfter);
    p.addOption(screenshotScene);
    p.process(app);

    std::optional<ScreenshotScene::Scene> scene;
    int screenshotDelay = 0;
    if (p.isSet(screenshot)) {
        scene = ScreenshotScene::fromName(p.value(screenshotScene));
        if (!scene) {
            printError(QStringLiteral("--screenshot-scene: \"%1\" is not one of %2")
                           .arg(p.value(screenshotScene),
                                ScreenshotScene::names().join(QStringLiteral(", "))));
            return ExitUsage;
        }
        bool ok = false;
        screenshotDelay = p.value(screenshotAfter).toInt(&ok);
        if (!ok || screenshotDelay < 0) {
            printError(QStringLiteral("--screenshot-after-ms: \"%1\" is not a whole number of "
                                      "milliseconds")
                           .arg(p.value(screenshotAfter)));
            return ExitUsage;
        }
    }

    engine::EngineConfig config;
    config.labNodes = 2; // the lab's "nodes": two fault proxies in front of the managed anvil
    config.demoChildEveryTicks = 5; // the demo factory next to the demo token
    if (p.isSet(db)) {
        config.dbPath = p.value(db);
    } else {
        // The default file's directory is the app's own, made on first start; a path the
        // user names must exist already (the store says so if it does not).
        const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir().mkpath(dataDir);
        config.dbPath = QDir(dataDir).absoluteFilePath(QStringLiteral("forkscope.sqlite"));
    }
    if (p.isSet(db) && p.value(db).startsWith(QLatin1String("postgres"), Qt::CaseInsensitive)) {
        if (const auto error = config::validatePostgresUrl(p.value(db))) {
            printError(QStringLiteral("--db: %1").arg(*error));
            return ExitUsage;
        }
    }
    if (p.isSet(rpc)) {
        const auto url = config::httpUrl(p.value(rpc));
        if (!url) {
            printError(QStringLiteral("--rpc: ") + *config::validateEndpoint(p.value(rpc)));
            return ExitUsage;
        }
        config.managedDevnet = false;
        config.rpcUrl = *url;
    }
    if (p.isSet(demo)) {
        bool ok = false;
        const int n = p.value(demo).toInt(&ok);
        if (!ok || n < 1 || n > 200) {
            printError(QStringLiteral("--demo-transfers: \"%1\" is not a whole number from 1 to "
                                      "200")
                           .arg(p.value(demo)));
            return ExitUsage;
        }
        config.demoTransfersPerTick = n; // one tick a second
    }
    if (p.isSet(env)) {
        // Another environment is how a different contract set (or start block) gets its
        // own complete history; the indexer refuses to mix them into one.
        if (const auto error = config::validateEnvironmentId(p.value(env))) {
            printError(QStringLiteral("--env: %1").arg(*error));
            return ExitUsage;
        }
        config.indexer.environmentId = p.value(env).trimmed();
    }

    // Saved settings (File > Settings) apply on top of the defaults; --rpc and --env, when
    // given, still choose the node and the environment.
    const engine::EngineConfig base = config;
    const auto fromSettings = [base, &p, &rpc, &env](const config::AppSettings& s) {
        engine::EngineConfig c = engine::configFromSettings(s, base);
        if (p.isSet(env))
            c.indexer.environmentId = base.indexer.environmentId;
        if (p.isSet(rpc)) {
            c.managedDevnet = false;
            c.rpcUrl = base.rpcUrl;
            if (s.endpointList().isEmpty())
                c.nodes.clear();
        }
        return c;
    };
    {
        QSettings store;
        config = fromSettings(config::AppSettings::load(store));
    }

    engine::EngineHost host;
    ui::MainWindow window(&host);
    QObject::connect(&window, &ui::MainWindow::engineRestartRequested, &host,
                     [&host, &config] { host.start(config); });
    QObject::connect(&window, &ui::MainWindow::engineStopRequested, &host,
                     [&host] { host.shutdown(); });
    QObject::connect(&window, &ui::MainWindow::databaseChosen, &host,
                     [&host, &config](const QString& path) {
                         config.dbPath = path;
                         host.start(config);
                     });
    QObject::connect(
        &window, &ui::MainWindow::settingsSaved, &host,
        [&config, &fromSettings](const config::AppSettings& s) { config = fromSettings(s); });
    QObject::connect(&window, &ui::MainWindow::settingsChanged, &host,
                     [&host, &config, &fromSettings](const config::AppSettings& s) {
                         config = fromSettings(s);
                         host.start(config);
                     });
    // The event log is also mirrored on stderr, so headless runs and tests can follow it.
    QObject::connect(&host, &engine::EngineHost::logMessage, &app,
                     [](const QString& level, const QString& text) {
                         std::fprintf(stderr, "forkscope: [%s] %s\n", qPrintable(level),
                                      qPrintable(text));
                         std::fflush(stderr);
                     });
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested, &window,
                     &QWidget::close);
    if (scene) // the docs' screenshots: a laptop-sized window
        window.resize(1280, 720);
    window.show();
    host.start(config);
    if (scene) {
        // For the docs' and AppStream screenshots (packaging/screenshot.sh runs it under Xvfb).
        auto* shot =
            new ScreenshotScene(*scene, host, window, p.value(screenshot), screenshotDelay);
        shot->start();
    }
    const int code = QApplication::exec();
    // Stop the workers (and the managed anvil) before the window goes away.
    host.shutdown();
    return code;
}

} // namespace forkscope::app
