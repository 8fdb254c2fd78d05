'use strict';
// Peer client for conformance tests: drives npm `ali-ons` (pure JavaScript RocketMQ client)
// against a plain name server (no ONS HTTP address lookup).
//
//   node ons_client.js produce      <namesrv> <topic> <count>
//   node ons_client.js produce-auto <namesrv> <topic> <count>   (topic may not exist yet: TBW102)
//   node ons_client.js consume      <namesrv> <topic> <group> <count> <timeoutSec>
//
// <namesrv> is "host:port" or a ';'-separated list.  stdout carries only JSON lines, one per
// message; diagnostics go to stderr.  ali-ons is loaded from $PEER_NODE_MODULES, else from
// ${MQADMIN_CACHE:-~/.cache/mqadmin}/peers/node/node_modules (where harness.ensure_node_peer()
// installs it), else through the normal Node resolution.
//
// Optional environment: PEER_BODY_PREFIX, PEER_TAGS, PEER_GROUP (same contract as the other
// peers); PEER_ACCESS_KEY / PEER_SECRET_KEY to make ali-ons sign requests (off by default:
// without keys ali-ons sends no AccessKey/Signature fields at all).

const os = require('os');
const path = require('path');
const util = require('util');

function loadAliOns() {
  const cache = process.env.MQADMIN_CACHE || path.join(os.homedir(), '.cache', 'mqadmin');
  const dirs = [ process.env.PEER_NODE_MODULES, path.join(cache, 'peers', 'node', 'node_modules') ];
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      return require(path.join(dir, 'ali-ons'));
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  return require('ali-ons');
}

const { Producer, Consumer, Message } = loadAliOns();

const EXIT_USAGE = 64;
const EXIT_FAIL = 2;
const EXIT_STATUS = 3;
const EXIT_TIMEOUT = 4;

function emit(rec) {
  process.stdout.write(JSON.stringify(rec) + '\n');
}

function err(...args) {
  process.stderr.write('[peer-ons] ' + args.map(a => (a instanceof Error ? (a.stack || a.message) : String(a))).join(' ') + '\n');
}

// ali-ons logs warn/error with console.*; keep everything on stderr.
const logger = {
  info() {},
  debug() {},
  warn(...args) { err('WARN', util.format(...args)); },
  error(...args) { err('ERROR', util.format(...args)); },
};

// Required by ali-ons' RemotingClient even when nameSrv is given; with nameSrv set it is never
// called.  Fail loudly instead of contacting any HTTP address.
const noHttp = {
  async request(url) {
    throw new Error('ali-ons tried an HTTP name server lookup (' + url + '); nameSrv should be used');
  },
};

function baseOptions(namesrv, role) {
  const opts = {
    httpclient: noHttp,
    nameSrv: namesrv.split(';').map(s => s.trim()).filter(Boolean),
    logger,
    clientIP: '127.0.0.1',
    instanceName: `peer-ons-${role}-${process.pid}-${Date.now()}`,
  };
  if (process.env.PEER_ACCESS_KEY) {
    opts.accessKeyId = process.env.PEER_ACCESS_KEY;
    opts.accessKeySecret = process.env.PEER_SECRET_KEY || 'dummy-secret';
  }
  return opts;
}

function watchdog(seconds, what) {
  const t = setTimeout(() => {
    err(`watchdog: ${what} did not finish within ${seconds}s`);
    process.exit(EXIT_TIMEOUT);
  }, seconds * 1000);
  t.unref();
}

async function closeBounded(client, ms) {
  await Promise.race([
    client.close().catch(e => err('close:', e)),
    new Promise(resolve => setTimeout(resolve, ms).unref()),
  ]);
}

// ali-ons 3.12.0 does not fall back to the default topic (TBW102) route when the name server
// answers TOPIC_NOT_EXIST: MQProducer.tryToFindTopicPublishInfo() lets the error escape before
// reaching its own isDefault branch (the Java client catches it).  For produce-auto we take that
// branch of ali-ons' own code ourselves; the sends then carry defaultTopic=TBW102 and the broker
// auto-creates the topic, as with the Java client.
async function primeDefaultRoute(producer, topic) {
  try {
    await producer._mqClient.getTopicRouteInfoFromNameServer(topic, 3000);
    return false; // topic exists, nothing to do
  } catch (e) {
    if (!/No topic route info/.test(String(e && e.message))) throw e;
  }
  await producer._mqClient.updateTopicRouteInfoFromNameServer(topic, true, producer);
  err(`topic ${topic} has no route; using the ${producer.createTopicKey} route (auto-create)`);
  return true;
}

async function produce(namesrv, topic, count, auto) {
  const prefix = process.env.PEER_BODY_PREFIX || `peer-ons-${process.pid}-${Date.now()}`;
  const tags = process.env.PEER_TAGS || 'TagA';
  const producer = new Producer(Object.assign(baseOptions(namesrv, 'p'), {
    producerGroup: process.env.PEER_GROUP || 'PG_PEER_ONS',
    sendMsgTimeout: 10000,
  }));
  producer.on('error', e => err('producer error:', e));
  watchdog(30 + 12 * count, 'produce');
  let rc = 0;
  try {
    await producer.ready();
    if (auto) await primeDefaultRoute(producer, topic);
    for (let i = 0; i < count; i++) {
      const body = `${prefix}-${i}`;
      const keys = `${prefix}-k${i}`;
      const msg = new Message(topic, tags, body);
      msg.keys = [ keys ];
      let r;
      try {
        r = await producer.send(msg);
      } catch (e) {
        err(`send #${i} failed:`, e);
        rc = EXIT_FAIL;
        break;
      }
      emit({
        msgId: r.msgId,
        queueId: r.messageQueue ? Number(r.messageQueue.queueId) : null,
        brokerName: r.messageQueue ? r.messageQueue.brokerName : null,
        queueOffset: r.queueOffset === undefined ? null : Number(r.queueOffset),
        status: r.sendStatus,
        topic,
        body,
        keys,
        tags,
      });
      if (r.sendStatus !== 'SEND_OK') {
        err(`send #${i} status ${r.sendStatus}`);
        rc = EXIT_STATUS;
      }
    }
  } catch (e) {
    err('producer failed:', e);
    rc = EXIT_FAIL;
  }
  await closeBounded(producer, 5000);
  return rc;
}

async function consume(namesrv, topic, group, count, timeoutSec) {
  watchdog(timeoutSec + 15, 'consume');
  const consumer = new Consumer(Object.assign(baseOptions(namesrv, 'c'), {
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    // Long-poll less than the default 15 s so shutdown is quick.
    brokerSuspendMaxTimeMillis: 3000,
    consumerTimeoutMillisWhenSuspend: 10000,
    persistConsumerOffsetInterval: 1000,
  }));
  consumer.on('error', e => err('consumer error:', e));
  const seen = new Set();
  let finish;
  const done = new Promise(resolve => { finish = resolve; });
  consumer.subscribe(topic, '*', async (msg, mq) => {
    const id = msg.msgId;
    if (seen.has(id)) return;
    seen.add(id);
    emit({
      msgId: id,
      queueId: msg.queueId,
      brokerName: mq && mq.brokerName !== undefined ? mq.brokerName : null,
      queueOffset: msg.queueOffset === undefined || msg.queueOffset === null ? null : Number(msg.queueOffset),
      topic: msg.topic,
      body: msg.body ? msg.body.toString('utf8') : null,
      keys: msg.keys === undefined ? null : msg.keys,
      tags: msg.tags === undefined ? null : msg.tags,
      reconsumeTimes: msg.reconsumeTimes,
    });
    // ali-ons moves a queue's offset past a message only after its listener has returned (in the promise
    // chain that follows): end on the next turn of the event loop, so close() commits the last offset too.
    if (seen.size >= count) setImmediate(() => finish(0));
  });
  const timer = setTimeout(() => finish(EXIT_TIMEOUT), timeoutSec * 1000);
  let rc;
  try {
    await consumer.ready();
    rc = await done;
  } catch (e) {
    err('consumer failed:', e);
    rc = EXIT_FAIL;
  }
  clearTimeout(timer);
  if (rc === EXIT_TIMEOUT) err(`timeout after ${timeoutSec}s: received ${seen.size} of ${count}`);
  await closeBounded(consumer, 5000);
  return rc;
}

async function main(argv) {
  const mode = argv[0];
  if ((mode === 'produce' || mode === 'produce-auto') && argv.length === 4) {
    return produce(argv[1], argv[2], parseInt(argv[3], 10), mode === 'produce-auto');
  }
  if (mode === 'consume' && argv.length === 6) {
    return consume(argv[1], argv[2], argv[3], parseInt(argv[4], 10), parseFloat(argv[5]));
  }
  err('usage: produce|produce-auto <namesrv> <topic> <count> | consume <namesrv> <topic> <group> <count> <timeoutSec>');
  return EXIT_USAGE;
}

main(process.argv.slice(2)).then(
  rc => process.stdout.write('', () => process.exit(rc)),
  e => { err('fatal:', e); process.exit(EXIT_FAIL); }
);
