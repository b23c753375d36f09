// The Contracts tab on a real indexed environment, the store a data row: `forkscope index`
// follows a factory (resources/contracts/DemoFactory.sol) and a plain token on a real anvil,
// then the engine's read service (on its own thread, read-only, either store) answers the
// tab's requests, and the tab shows every source with its checkpoint and children count,
// and the selected factory's children as the node created them. Both models run under
// QAbstractItemModelTester throughout.
#include "FactoryLab.h"
#include "contracts/AddSourceDialog.h"
#include "contracts/ChildTableModel.h"
#include "contracts/ContractsView.h"
#include "contracts/SourceTableModel.h"
#include "engine/EngineStatus.h"
#include "engine/ReadService.h"
#include "lab/DemoToken.h"

#include <QAbstractItemModelTester>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace forkscope;
using test::Backend;
using test::NodeChild;
using ui::ChildTableModel;
using ui::SourceTableModel;

class TestContractsView : public QObject, public test::FactoryLab
{
    Q_OBJECT
private slots:
    void initTestCase() { m_cluster.start(); }
    void init()
    {
        // A text built with an argument too many or too few is a bug the eye may miss.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("^QString::arg")));
        // One chain for every dialog row: they only read it.
        const QByteArray f = QTest::currentTestFunction();
        if (f == "aBrokenStoreIsSaidNotHidden" || (f == "theDialogsCheckBeforeAccepting" && m_lab))
            return;
        newChain(53);
    }
    void listsEverySourceAndAFactorysChildren_data() { rows(); }
    void listsEverySourceAndAFactorysChildren();
    void aBrokenStoreIsSaidNotHidden();
    void theDialogsCheckBeforeAccepting_data();
    void theDialogsCheckBeforeAccepting();
};

void TestContractsView::listsEverySourceAndAFactorysChildren()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("contracts");
    const chain::Address token = m_lab->deployToken(QStringLiteral("AAA")).address();
    for (int n = 0; n < 5; ++n)
        m_chain->block(1 + m_random.bounded(2), m_random.bounded(2), m_random);
    VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env) << "--contract" << token.toHex()));
    Backend b(db);
    const qint64 checkpoint = checkpointOf(b.open(), env);
    b.close();
    const QList<NodeChild> node = m_chain->nodeChildren(quint64(checkpoint));
    QVERIFY(node.size() >= 5);
    // The creating transactions, as the node's creation events carry them.
    QHash<QString, QString> createdBy;
    {
        rpc::LogFilter f = rpc::LogFilter::range(0, quint64(checkpoint), {m_chain->factory()});
        for (const chain::LogEntry& l : m_lab->eth().getLogs(f))
            createdBy.insert(QStringLiteral("0x") + QString::fromLatin1(l.data.mid(12, 20).toHex()),
                             l.transactionHash.toHex());
    }

    engine::ReadService read(db);
    read.setScope(env, 31337);
    read.start();
    ui::ContractsView view;
    QAbstractItemModelTester sourcesTester(view.sources(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester childrenTester(view.children(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
    connect(&view, &ui::ContractsView::refreshRequested, &read,
            &engine::ReadService::requestSourceList);
    connect(&read, &engine::ReadService::sourceListAvailable, &view,
            &ui::ContractsView::applySources);
    QSignalSpy answers(&read, &engine::ReadService::sourceListAvailable);
    engine::EngineStatus status;
    status.headBlock = m_lab->eth().blockNumber();
    view.applyStatus(status);
    view.resize(900, 600);
    view.show(); // asks for the first snapshot
    QVERIFY(answers.wait(10000));

    // Two sources: the token, and the factory with its children count.
    SourceTableModel& sources = *view.sources();
    QCOMPARE(sources.rowCount(), 2);
    int factoryRow = -1;
    for (int row = 0; row < sources.rowCount(); ++row) {
        QCOMPARE(sources.text(row, SourceTableModel::Checkpoint), QString::number(checkpoint));
        QCOMPARE(sources.text(row, SourceTableModel::Progress), QStringLiteral("at the head"));
        if (sources.text(row, SourceTableModel::Kind) == QLatin1String("factory"))
            factoryRow = row;
    }
    QVERIFY(factoryRow >= 0);
    const int tokenRow = 1 - factoryRow;
    QCOMPARE(sources.text(tokenRow, SourceTableModel::Address), token.toHex());
    QCOMPARE(sources.text(tokenRow, SourceTableModel::Children), QString());
    QCOMPARE(sources.text(factoryRow, SourceTableModel::Address), m_chain->factory().toHex());
    QCOMPARE(sources.text(factoryRow, SourceTableModel::Children), QString::number(node.size()));
    QVERIFY2(sources.text(factoryRow, SourceTableModel::CreationEvent).startsWith("PairCreated("),
             qPrintable(sources.text(factoryRow, SourceTableModel::CreationEvent)));
    QVERIFY(sources.text(factoryRow, SourceTableModel::CreationEvent).endsWith("child: pair"));
    QVERIFY2(view.statusText().contains(env + ": 2 sources"), qPrintable(view.statusText()));

    // The factory is selected: its children, in creation order, with their creation blocks
    // and creating transactions.
    ChildTableModel& children = *view.children();
    QCOMPARE(children.factory(), m_chain->factory().toHex());
    QCOMPARE(children.rowCount(), int(node.size()));
    for (int row = 0; row < children.rowCount(); ++row) {
        const NodeChild& c = node.at(row);
        QCOMPARE(children.text(row, ChildTableModel::Child), c.address);
        QCOMPARE(children.text(row, ChildTableModel::CreationBlock), QString::number(c.block));
        QCOMPARE(children.text(row, ChildTableModel::LogIndex), QString::number(c.logIndex));
        QCOMPARE(children.text(row, ChildTableModel::CreatingTransaction),
                 createdBy.value(c.address));
    }

    // The filter: a child's address keeps its factory and that child only; the token's
    // address keeps the token.
    const NodeChild& wanted = node.at(node.size() / 2);
    view.filterEdit()->setText(wanted.address.mid(2, 12).toUpper());
    QCOMPARE(view.sourceView()->model()->rowCount(), 1);
    QCOMPARE(view.childView()->model()->rowCount(), 1);
    QCOMPARE(view.childView()->model()->index(0, ChildTableModel::Child).data().toString(),
             wanted.address);
    QCOMPARE(children.factory(), m_chain->factory().toHex()); // still selected
    view.filterEdit()->setText(token.toHex());
    QCOMPARE(view.sourceView()->model()->rowCount(), 1);
    QCOMPARE(view.sourceView()->model()->index(0, SourceTableModel::Address).data().toString(),
             token.toHex());
    // The factory hidden by the filter keeps its children listed, and is selected again once
    // the filter shows it.
    QCOMPARE(children.factory(), m_chain->factory().toHex());
    QCOMPARE(view.childView()->model()->rowCount(), 0);
    view.filterEdit()->clear();
    QCOMPARE(view.childView()->model()->rowCount(), int(node.size()));
    QCOMPARE(view.sourceView()->selectionModel()->selectedRows().size(), 1);

    // A child created since: the next snapshot appends it and keeps the selection; the
    // progress says how far behind the node's head the checkpoint now is.
    const QString selected = view.childView()->model()->index(1, 0).data().toString();
    view.childView()->selectRow(1);
    m_chain->block(1, 1, m_random);
    status.headBlock = m_lab->eth().blockNumber();
    view.applyStatus(status);
    QCOMPARE(sources.text(factoryRow, SourceTableModel::Progress).endsWith("(1 block behind)"),
             true);
    VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env) << "--contract" << token.toHex()));
    answers.clear();
    emit view.refreshRequested();
    QVERIFY(answers.wait(10000));
    QCOMPARE(children.rowCount(), int(node.size()) + 1);
    QCOMPARE(sources.text(factoryRow, SourceTableModel::Children),
             QString::number(node.size() + 1));
    QCOMPARE(sources.text(factoryRow, SourceTableModel::Progress), QStringLiteral("at the head"));
    const QModelIndexList stillSelected = view.childView()->selectionModel()->selectedRows();
    QCOMPARE(stillSelected.size(), 1);
    QCOMPARE(stillSelected.first().data().toString(), selected);
    read.requestStop();
    QVERIFY(read.wait());
}

void TestContractsView::aBrokenStoreIsSaidNotHidden()
{
    // A database that cannot be opened: the tab says why instead of showing an empty list.
    engine::ReadService read(m_dir.filePath(QStringLiteral("missing/none.sqlite")));
    read.setScope(QStringLiteral("e"), 31337);
    read.start();
    ui::ContractsView view;
    connect(&view, &ui::ContractsView::refreshRequested, &read,
            &engine::ReadService::requestSourceList);
    connect(&read, &engine::ReadService::sourceListAvailable, &view,
            &ui::ContractsView::applySources);
    QSignalSpy answers(&read, &engine::ReadService::sourceListAvailable);
    view.show();
    QVERIFY(answers.wait(10000));
    QCOMPARE(view.sources()->rowCount(), 0);
    QVERIFY2(view.statusText().startsWith("The sources could not be read: "),
             qPrintable(view.statusText()));
    read.requestStop();
    QVERIFY(read.wait());
}

void TestContractsView::theDialogsCheckBeforeAccepting_data()
{
    QTest::addColumn<bool>("factory");
    QTest::addColumn<QString>("address"); // "factory": the lab's factory; "sender": an account
    QTest::addColumn<QString>("event");
    QTest::addColumn<QString>("childArg");
    QTest::addColumn<QString>("says"); // empty: accepted
    QTest::newRow("a contract with code") << false << "factory"
                                          << ""
                                          << ""
                                          << "";
    QTest::newRow("a factory with code") << true << "factory" << test::kPairCreated << "pair"
                                         << "";
    QTest::newRow("an unnamed child argument by its position") << true << "factory"
                                                               << "Made(address, address)"
                                                               << "1"
                                                               << "";
    QTest::newRow("an address that is no address") << false << "0x12"
                                                   << ""
                                                   << ""
                                                   << "Address: ";
    QTest::newRow("an account, no code") << false << "sender"
                                         << ""
                                         << ""
                                         << "The node has no code at 0x";
    QTest::newRow("a factory without code") << true << "sender" << test::kPairCreated << "pair"
                                            << "The node has no code at 0x";
    QTest::newRow("a signature that does not parse")
        << true << "factory"
        << "PairCreated(address indexed token0, address pair"
        << "pair"
        << "The creation event";
    QTest::newRow("a child argument it does not have")
        << true << "factory" << test::kPairCreated << "pool"
        << "The child argument pool: PairCreated(";
    QTest::newRow("a child argument that is no address")
        << true << "factory" << test::kPairCreated << "3"
        << "not an address";
}

void TestContractsView::theDialogsCheckBeforeAccepting()
{
    QFETCH(bool, factory);
    QFETCH(QString, address);
    QFETCH(QString, event);
    QFETCH(QString, childArg);
    QFETCH(QString, says);
    if (address == "factory")
        address = m_chain->factory().toHex().toUpper().replace("0X", "0x");
    else if (address == "sender")
        address = lab::DemoToken::defaultSender(m_lab->rpc()).toHex();
    // The engine's read service asks the lab's node, on its own thread.
    engine::ReadService read(m_dir.filePath(QStringLiteral("dialogs.sqlite")));
    read.setScope(QStringLiteral("e"), 31337, m_lab->devnet().url());
    read.start();
    quint64 tickets = 100;
    QList<QString> asked;
    ui::AddSourceDialog dialog(factory ? engine::SourceSpec::Kind::Factory
                                       : engine::SourceSpec::Kind::Contract,
                               [&](const QString& a) {
                                   asked << a;
                                   read.requestCodeCheck(++tickets, a);
                                   return tickets;
                               });
    connect(&read, &engine::ReadService::codeChecked, &dialog,
            &ui::AddSourceDialog::applyCodeCheck);
    QSignalSpy answers(&read, &engine::ReadService::codeChecked);
    QCOMPARE(dialog.eventEdit() != nullptr, factory);
    dialog.addressEdit()->setText(address);
    if (factory) {
        dialog.eventEdit()->setText(event);
        dialog.childArgEdit()->setText(childArg);
    }
    dialog.open();
    // An answer to another ticket (another dialog's) is not this one's.
    dialog.applyCodeCheck(
        engine::CodeCheck{7, address, engine::CodeCheck::Verdict::HasCode, 1, {}});
    QVERIFY(dialog.isVisible());
    dialog.buttons()->button(QDialogButtonBox::Ok)->click();
    const bool local = says.startsWith("Address") || says.startsWith("The creation") ||
                       says.startsWith("The child") || says == "not an address";
    if (local) {
        // Refused before the node is asked.
        QVERIFY(asked.isEmpty());
    } else {
        QCOMPARE(asked, QList<QString>{address.toLower()});
        QVERIFY(dialog.waitingForNode());
        QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY(answers.wait(10000));
        QVERIFY(!dialog.waitingForNode());
    }
    if (says.isEmpty()) {
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.spec().address, address.toLower());
        QStringList flags = dialog.spec().indexArguments();
        QCOMPARE(flags.value(0), factory ? QString("--factory") : QString("--contract"));
        QCOMPARE(flags.value(1), address.toLower());
    } else {
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY2(dialog.message().contains(says), qPrintable(dialog.message()));
        QCOMPARE(dialog.message().count('\n'), 0);
    }
    read.requestStop();
    QVERIFY(read.wait());
}

QTEST_MAIN(TestContractsView)
#include "tst_contractsview.moc"
