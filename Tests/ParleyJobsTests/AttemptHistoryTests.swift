import Foundation
import Testing
@testable import ParleyJobs

@Suite struct AttemptHistoryTests {
    let job = "abc234-0003"

    @Test func aFirstAttemptFailureIsItsOnlyReason() {
        let reasons = AttemptHistory.reasons(events: [JobEvent(.queued, job: job, time: 1)], current: 1, worker: "a:1", reason: "wavparse: not a WAV")
        #expect(reasons == ["attempt 1 on a:1: wavparse: not a WAV"])
    }

    @Test func everyEarlierAttemptIsNamedWithItsWorkerAndReason() {
        let events = [
            JobEvent(.queued, job: job, time: 1),
            JobEvent(.started, job: job, time: 2, worker: "a:1", attempt: 1),
            JobEvent(.attemptFailed, job: job, time: 3, worker: "a:1", attempt: 1, reason: "no speech model"),
            JobEvent(.started, job: job, time: 4, worker: "b:2", attempt: 2),
            // b:2 was killed: no failure, no result.
        ]
        let reasons = AttemptHistory.reasons(events: events, current: 3, worker: "c:3", reason: "decoder error")
        #expect(reasons.count == 3)
        #expect(reasons[0] == "attempt 1 on a:1: no speech model")
        #expect(reasons[1].hasPrefix("attempt 2 on b:2: no answer within the ack wait"))
        #expect(reasons[2] == "attempt 3 on c:3: decoder error")
    }

    @Test func aJobWhoseEveryDeliveryWentUnansweredListsEachWorker() {
        let events = [
            JobEvent(.queued, job: job, time: 1),
            JobEvent(.started, job: job, time: 2, worker: "a:1", attempt: 1),
            JobEvent(.started, job: job, time: 4, worker: "b:2", attempt: 2),
        ]
        let reasons = AttemptHistory.reasons(events: events, through: 2)
        #expect(reasons == [
            "attempt 1 on a:1: no answer within the ack wait (the worker died or lost the server); delivered again",
            "attempt 2 on b:2: no answer within the ack wait (the worker died or lost the server)",
        ])
        #expect(AttemptHistory.reasons(events: events, through: 0).isEmpty)
    }

    @Test func theMaxDeliveriesAdvisoryIsReadFromJetStreamsWireFormat() throws {
        let payload = """
            {"type":"io.nats.jetstream.advisory.v1.max_deliver","id":"kKEk1DUAPLgaSvDXfsvT2u","timestamp":"2026-11-24T10:01:02.5Z",\
            "stream":"PARLEY_JOBS","consumer":"parley-workers","stream_seq":17,"deliveries":3}
            """
        let advisory = try JSONDecoder().decode(MaxDeliveriesAdvisory.self, from: Data(payload.utf8))
        #expect(advisory == MaxDeliveriesAdvisory(stream: "PARLEY_JOBS", consumer: "parley-workers", streamSequence: 17, deliveries: 3))
        #expect(JobBoard.exhaustedSubject == "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.PARLEY_JOBS.parley-workers")
        let other = payload.replacingOccurrences(of: "v1.max_deliver", with: "v1.terminated")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MaxDeliveriesAdvisory.self, from: Data(other.utf8)) }
    }

    @Test func aDeliveryNobodyStartedIsSaidSo() {
        let reasons = AttemptHistory.reasons(events: [], current: 2, worker: "c:3", reason: "x")
        #expect(reasons[0] == "attempt 1: delivered, but no worker recorded starting it")
    }

    @Test func stateFollowsTheLastEvent() {
        #expect(AttemptHistory.state(of: []) == .unknown)
        #expect(AttemptHistory.state(of: [JobEvent(.queued, job: job, time: 1)]) == .queued)
        let running = [JobEvent(.queued, job: job, time: 1), JobEvent(.started, job: job, time: 2, worker: "a:1", attempt: 1)]
        #expect(AttemptHistory.state(of: running) == .running(worker: "a:1", attempt: 1))
        #expect(AttemptHistory.state(of: running + [JobEvent(.done, job: job, time: 3)]).isFinished)
    }
}

@Suite struct ServerAddressTests {
    @Test func loopbackInClearIsAllowed() throws {
        let address = try ServerAddress("nats://127.0.0.1:4222", environment: [:])
        #expect(address.url == "nats://127.0.0.1:4222")
        #expect(!address.secure)
        #expect(address.credentials == .none)
    }

    @Test func anotherHostInClearIsRefusedUnlessAsked() throws {
        #expect(throws: ServerAddress.Invalid.self) { try ServerAddress("nats://10.0.0.7:4222", environment: [:]) }
        let allowed = try ServerAddress("nats://10.0.0.7", allowPlaintext: true, environment: [:])
        #expect(allowed.url == "nats://10.0.0.7:4222")
        let secure = try ServerAddress("tls://queue.example.org:4443", environment: [:])
        #expect(secure.secure && secure.port == 4443)
    }

    @Test func credentialsComeFromTheEnvironmentNeverTheURL() throws {
        do {
            _ = try ServerAddress("nats://alice:s3cret@127.0.0.1:4222", environment: [:])
            Issue.record("a URL with a password was accepted")
        } catch {
            #expect(!error.description.contains("s3cret"))
            #expect(error.description.contains("NATS_USER"))
        }
        let token = try ServerAddress("nats://127.0.0.1", environment: ["NATS_TOKEN": "t0k"])
        #expect(token.credentials == .token("t0k"))
        #expect(!token.description.contains("t0k"))
        let user = try ServerAddress("nats://127.0.0.1", environment: ["NATS_USER": "bob", "NATS_PASSWORD": "pw"])
        #expect(user.credentials == .user("bob", password: "pw"))
    }

    @Test func otherSchemesAreNamed() {
        do {
            _ = try ServerAddress("http://127.0.0.1:4222", environment: [:])
            Issue.record("http:// accepted")
        } catch {
            #expect(error.description.contains("'http'"))
        }
    }
}
