import Concord
import ConcordMerge
import Foundation
import Testing

/// The resolver page's server (`concord-ui`) on real containers: what its API shows of a
/// conflict, the resolutions it makes, and the requests it refuses.
@Suite struct ResolverPageTests {
    /// A cloud and three devices (iPhone, iPad, Mac) that changed one line each of `note.txt`
    /// offline and synced twice; the folder is removed when it goes.
    final class Conflict {
        static let base = "one\n-\n-\ntwo\n-\n-\nthree\n"
        static let edits = ["iPhone": ("one", "ONE"), "iPad": ("two", "TWO"), "Mac": ("three", "THREE")]
        static let merged = "ONE\n-\n-\nTWO\n-\n-\nTHREE\n"
        let folder = NSTemporaryDirectory() + "concord-ui-tests-" + UUID().uuidString
        var devices: [Container] = []

        init(document: String = "note.txt") async throws {
            let cloud = "\(folder)/cloud.git"
            devices.append(try await Container.create(at: "\(folder)/phone", deviceName: "iPhone", cloud: cloud))
            devices.append(try await Container.clone(from: cloud, to: "\(folder)/tablet", deviceName: "iPad"))
            devices.append(try await Container.clone(from: cloud, to: "\(folder)/laptop", deviceName: "Mac"))
            let path = try DocumentPath(document)
            try await devices[0].save(path, content: .file(Data(Self.base.utf8)))
            for device in devices { try await device.sync() }
            for device in devices {
                let (old, new) = try #require(Self.edits[device.device.name])
                try await device.save(path, content: .file(Data(Self.base.replacingOccurrences(of: old, with: new).utf8)))
            }
            for _ in 0..<2 {
                for device in devices { try await device.sync() }
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        var phone: Container { devices[0] }
    }

    @Test func theConflictViewShowsTheAncestorEachVersionsChangesAndThePreviews() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        let list = try server.get("/api/documents").json
        #expect(list["conflicts"] as? Int == 1)
        let first = (list["documents"] as? [[String: Any]])?.first
        #expect(first?["path"] as? String == "note.txt" && first?["state"] as? String == "inConflict" && first?["versions"] as? Int == 3)

        let view = try server.get("/api/conflict?document=note.txt").json
        let base = try #require(view["base"] as? [String])
        #expect(base.joined() == Conflict.base, "the ancestor's lines, each with its line break")
        #expect((view["ancestor"] as? [String: Any])?["device"] as? String == "iPhone")
        let versions = try #require(view["versions"] as? [[String: Any]])
        #expect(Set(versions.compactMap { $0["device"] as? String }) == ["iPhone", "iPad", "Mac"])
        #expect(versions.first?["current"] as? Bool == true)
        for version in versions {
            let (old, new) = try #require(Conflict.edits[version["device"] as? String ?? ""])
            let changes = (version["changes"] as? [[String: Any]]) ?? []
            #expect(changes.count == 1, "one change against the ancestor")
            let start = try #require(changes.first?["start"] as? Int), end = try #require(changes.first?["end"] as? Int)
            #expect(Array(base[start..<end]) == ["\(old)\n"] && changes.first?["lines"] as? [String] == ["\(new)\n"])
            #expect(version["added"] as? Int == 1 && version["removed"] as? Int == 1)
        }
        let previews = try #require(view["previews"] as? [[String: Any]])
        // The server registers no policy of its own: the built-in ones (this test process may have registered more).
        #expect(previews.compactMap { $0["policy"] as? String } == MergePolicies.builtIn.map(\.name))
        let text = try #require(previews.first { $0["policy"] as? String == "text" })
        #expect(text["merged"] as? Bool == true && text["hasText"] as? Bool == true)
        #expect(try server.get("/api/preview?document=note.txt&policy=text").json["text"] as? String == Conflict.merged)
        #expect((view["selected"] as? [String: Any])?["policy"] as? String == "text")
        #expect(view["start"] as? String == Conflict.merged)
        let regions = try #require(view["regions"] as? [[String: Any]])
        let devices = versions.map { $0["device"] as? String ?? "" }
        #expect(regions.map { ($0["changedBy"] as? [Int] ?? []).map { devices[$0] } } == [["iPhone"], ["iPad"], ["Mac"]])
        #expect(regions.map { $0["pick"] as? [Int] ?? [] } == regions.map { $0["changedBy"] as? [Int] ?? [] }, "each starts picked from the one version that changed it")
    }

    @Test func aResultWithConflictMarkersIsRefusedUntilConfirmed() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        let marked = "<<<<<<< iPhone\nONE\n=======\none\n>>>>>>> iPad\n"
        let refused = try server.post("/api/resolve", ["document": "note.txt", "action": "content", "content": marked])
        #expect(refused.status == 409 && (refused.json["error"] as? String)?.contains("conflict markers") == true)
        #expect(try await conflict.phone.conflicts().count == 1)
        let saved = try server.post("/api/resolve", ["document": "note.txt", "action": "content", "content": marked, "allowMarkers": true])
        #expect(saved.status == 200, "\(saved.json)")
        #expect(try await conflict.phone.conflicts().isEmpty)
        #expect(try await conflict.phone.content(of: DocumentPath("note.txt")) == .file(Data(marked.utf8)))
    }

    @Test(arguments: ["keep", "policy", "keepBoth"])
    func resolvesAsThePageAsks(action: String) async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        let note = try DocumentPath("note.txt")
        let versions = try await conflict.phone.unresolvedVersions(of: note)
        let tablet = try #require(versions.first { $0.deviceName == "iPad" })
        let union = try #require(try await conflict.phone.contention(of: note).preview("union")?.content)
        var asked: [String: Any] = ["document": "note.txt", "action": action]
        if action == "keep" { asked["version"] = String(tablet.id.prefix(7)) }
        if action == "policy" { asked["policy"] = "union" }
        let answer = try server.post("/api/resolve", asked)
        #expect(answer.status == 200, "\(answer.json)")
        #expect(try await conflict.phone.conflicts().isEmpty)
        let content = try await conflict.phone.content(of: note)
        switch action {
        case "keep": #expect(try await content == conflict.phone.content(of: note, version: tablet.id))
        case "policy": #expect(content == union)
        default:
            #expect(try await content == conflict.phone.content(of: note, version: versions[0].id), "the current version stays")
            #expect(try await conflict.phone.documents().count == 3, "the two other versions saved beside")
        }
    }

    @Test func aResolutionIsUndoneAndADeletedDocumentRestoredThroughTheAPI() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        let note = try DocumentPath("note.txt")
        let contenders = try await conflict.phone.unresolvedVersions(of: note).count
        #expect(try server.post("/api/resolve", ["document": "note.txt", "action": "latest"]).status == 200)
        let undone = try server.post("/api/undo", ["document": "note.txt"])
        #expect(undone.status == 200, "\(undone.json)")
        #expect(try await conflict.phone.unresolvedVersions(of: note).count == contenders, "the same versions in contention again")
        // Refused, nothing changed: in conflict again, not JSON, a path outside the container.
        let tree = try await conflict.phone.versions(of: note).count
        #expect(try server.post("/api/undo", ["document": "note.txt"]).status == 409)
        #expect(try server.request("POST", "/api/undo", headers: server.writeHeaders(), body: Data("undo".utf8)).status == 400)
        #expect(try server.post("/api/undo", ["document": "../outside"]).status == 400)
        #expect(try await conflict.phone.versions(of: note).count == tree)

        try await conflict.phone.save(DocumentPath("gone.txt"), content: .file(Data("gone\n".utf8)))
        try await conflict.phone.remove(DocumentPath("gone.txt"))
        let deleted = try #require((try server.get("/api/deleted").json["deleted"] as? [[String: Any]])?.first)
        #expect(deleted["document"] as? String == "gone.txt" && deleted["device"] as? String == conflict.phone.device.name)
        let restored = try server.post("/api/restore", ["document": "gone.txt", "version": deleted["lastVersion"] as? String ?? ""])
        let after = try server.get("/api/deleted").json["deleted"] as? [Any]
        #expect(restored.status == 200 && after?.isEmpty == true)
        #expect(try await conflict.phone.content(of: DocumentPath("gone.txt")) == .file(Data("gone\n".utf8)))
    }

    @Test func theHistoryShowsEachVersionsChangesAndAVersionCanBeRestored() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        #expect(try server.post("/api/resolve", ["document": "note.txt", "action": "policy", "policy": "text"]).status == 200)
        let history = try server.get("/api/history?document=note.txt").json
        let versions = try #require(history["versions"] as? [[String: Any]])
        #expect(history["total"] as? Int == 5 && versions.count == 5)
        #expect(versions.first?["current"] as? Bool == true && versions.first?["resolves"] as? Int == 3)
        for version in versions.dropFirst().dropLast() {
            let (old, new) = try #require(Conflict.edits[version["device"] as? String ?? ""])
            let changes = (version["changes"] as? [[String: Any]]) ?? []
            #expect(changes.filter { $0["kind"] as? String == "added" }.compactMap { $0["text"] as? String } == [new], "against the base it was made on")
            #expect(changes.filter { $0["kind"] as? String == "removed" }.compactMap { $0["text"] as? String } == [old])
        }
        let base = try #require(versions.last?["id"] as? String)
        let restored = try server.post("/api/restore", ["document": "note.txt", "version": base])
        #expect(restored.status == 200 && (restored.json["version"] as? String)?.count == 40, "\(restored.json)")
        #expect(try await conflict.phone.content(of: DocumentPath("note.txt")) == .file(Data(Conflict.base.utf8)))
        #expect(try await conflict.phone.versions(of: DocumentPath("note.txt")).count == 6, "nothing is lost: the restore is a new version")
        #expect(try server.post("/api/restore", ["document": "note.txt", "version": "abcdef0"]).status == 409)
    }

    /// The versions of an image are served as images (told by their bytes); an SVG never is.
    @Test func imagesAreShownAndNothingElseIsServedAsOne() async throws {
        let conflict = try await Conflict()
        let picture = try DocumentPath("picture.png"), drawing = try DocumentPath("drawing.svg")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        try await conflict.phone.save(picture, content: .file(png + Data([1])))
        try await conflict.phone.save(drawing, content: .file(Data("<svg onload=\"alert(1)\"></svg>".utf8)))
        for device in conflict.devices.prefix(2) { try await device.sync() }
        try await conflict.phone.save(picture, content: .file(png + Data([2])))
        try await conflict.devices[1].save(picture, content: .file(png + Data([3])))
        for device in conflict.devices.prefix(2) + conflict.devices.prefix(1) { try await device.sync() }
        let server = try UIServer(root: conflict.phone.root)
        let view = try server.get("/api/conflict?document=picture.png").json
        let versions = try #require(view["versions"] as? [[String: Any]])
        #expect(versions.count == 2 && versions.allSatisfy { $0["binary"] as? Bool == true && $0["image"] as? Bool == true })
        for version in versions {
            let id = try #require(version["id"] as? String)
            let answer = try server.get("/api/image?document=picture.png&version=\(id)")
            #expect(answer.status == 200 && answer.headers["content-type"] == "image/png")
            #expect(try await .file(answer.body) == conflict.phone.content(of: picture, version: id))
        }
        #expect(try server.get("/api/image?document=drawing.svg").status == 404, "an SVG is never served as an image")
        #expect(try server.get("/api/image?document=note.txt").status == 404)
    }

    @Test func theListNamesEachDocumentAsItIsNamedTheConflictsFirst() async throws {
        let conflict = try await Conflict()
        let odd = [#"say "hi" \ there.txt"#, "café/été 🎉.txt", "</script>.txt", "a.txt"]
        for name in odd { try await conflict.phone.save(DocumentPath(name), content: .file(Data("\(name)\n".utf8))) }
        let server = try UIServer(root: conflict.phone.root)
        let list = try server.get("/api/documents").json
        let documents = try #require(list["documents"] as? [[String: Any]])
        #expect(documents.compactMap { $0["path"] as? String } == ["note.txt"] + odd.sorted())
        #expect(documents.map { $0["versions"] as? Int } == [3] + odd.map { _ in nil })
        #expect(documents.dropFirst().allSatisfy { $0["state"] as? String == "normal" && $0["package"] as? Bool == false })
    }

    @Test func aPackagesVersionsListTheirFilesWithWhatChangedAgainstTheAncestor() async throws {
        let folder = NSTemporaryDirectory() + "concord-ui-tests-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let phone = try await Container.create(at: "\(folder)/phone", deviceName: "iPhone", cloud: "\(folder)/cloud.git", packagePatterns: ["*.note"])
        let tablet = try await Container.clone(from: "\(folder)/cloud.git", to: "\(folder)/tablet", deviceName: "iPad")
        let note = try DocumentPath("trip.note")
        let base: [String: Data] = ["text.md": Data("day one\nday two\n".utf8), "meta.json": Data("{}\n".utf8)]
        try await phone.save(note, content: .package(base))
        try await phone.sync()
        try await tablet.sync()
        var fromPhone = base
        fromPhone["text.md"] = Data("day one\nday 2\n".utf8)
        fromPhone["photo.txt"] = Data("a photo\n".utf8)
        var fromTablet = base
        fromTablet["meta.json"] = nil
        try await phone.save(note, content: .package(fromPhone))
        try await tablet.save(note, content: .package(fromTablet))
        for device in [phone, tablet, phone] { try await device.sync() }
        let server = try UIServer(root: phone.root)
        let view = try server.get("/api/conflict?document=trip.note").json
        let versions = try #require(view["versions"] as? [[String: Any]])
        func changes(_ device: String) -> [String] {
            let version = versions.first { $0["device"] as? String == device }
            return ((version?["fileChanges"] as? [[String: Any]]) ?? []).map { change in
                "\(change["path"] as? String ?? "") \(change["change"] as? String ?? "")" + ((change["added"] as? Int).map { " +\($0) -\(change["removed"] as? Int ?? 0)" } ?? "")
            }
        }
        #expect(changes("iPhone") == ["photo.txt added", "text.md changed +1 -1"])
        #expect(changes("iPad") == ["meta.json removed"])
        #expect(versions.first { $0["device"] as? String == "iPad" }?["files"] as? [String] == ["text.md"])
        // A changed text file's lines come with it, as a unified diff's hunks.
        let phoneVersion = versions.first { $0["device"] as? String == "iPhone" }
        let text = ((phoneVersion?["fileChanges"] as? [[String: Any]]) ?? []).first { $0["path"] as? String == "text.md" }
        let lines = ((text?["hunks"] as? [[String: Any]]) ?? []).flatMap { ($0["lines"] as? [[String: Any]]) ?? [] }
        #expect(lines.map { "\($0["kind"] as? String ?? "") \($0["text"] as? String ?? "")" } == ["context day one", "removed day two", "added day 2"])
    }

    @Test func manyConflictsAreResolvedAfterAPreviewOfWhatEachKeepsAndRemoves() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        let preview = try server.post("/api/bulk", ["pattern": "*.txt", "action": "latest", "dryRun": true])
        let reports = try #require(try JSONSerialization.jsonObject(with: preview.body) as? [[String: Any]])
        let latest = try #require(try await conflict.phone.unresolvedVersions(of: DocumentPath("note.txt")).max { $0.rank < $1.rank })
        #expect(reports.count == 1 && reports[0]["document"] as? String == "note.txt" && reports[0]["kept"] as? String == latest.deviceName)
        #expect(Set(reports[0]["removed"] as? [String] ?? []) == Set(["iPhone", "iPad", "Mac"]).subtracting([latest.deviceName]))
        #expect(try await conflict.phone.conflicts().count == 1, "a preview changes nothing")
        #expect(try server.post("/api/bulk", ["pattern": "*.md", "action": "latest", "dryRun": true]).status == 404)
        let done = try server.post("/api/bulk", ["pattern": "*.txt", "action": "policy", "policy": "text", "dryRun": false])
        #expect(done.status == 200, "\(done.body)")
        #expect(try await conflict.phone.conflicts().isEmpty)
        #expect(try await conflict.phone.content(of: DocumentPath("note.txt")) == .file(Data(Conflict.merged.utf8)))
    }

    @Test func badRequestsAreOneLineErrors() async throws {
        let conflict = try await Conflict()
        try await conflict.phone.save(DocumentPath("calm.txt"), content: .file(Data("calm\n".utf8)))
        let server = try UIServer(root: conflict.phone.root)
        let calm = try server.get("/api/conflict?document=calm.txt")
        #expect(calm.status == 404 && calm.json["error"] as? String == "'calm.txt' is not in conflict")
        let unknown = try server.post("/api/resolve", ["document": "note.txt", "action": "policy", "policy": "nonsense"])
        #expect(unknown.status == 400)
        let notJSON = try server.request(
            "POST", "/api/resolve",
            headers: ["Cookie": server.cookie, "Origin": "http://127.0.0.1:\(server.port)", "X-Concord-CSRF": server.csrf, "Content-Type": "text/plain"],
            body: Data("document=note.txt".utf8))
        #expect(notJSON.status == 400)
        #expect(try await conflict.phone.conflicts().count == 1, "nothing was resolved")
    }

    @Test func requestsWithoutTheTokenFromAnotherHostOrAnotherOriginAreRefused() async throws {
        let conflict = try await Conflict()
        let server = try UIServer(root: conflict.phone.root)
        #expect(try server.request("GET", "/api/documents").status == 403)
        #expect(try server.request("GET", "/api/documents", headers: ["Cookie": "concord_ui_\(server.port)=\(String(repeating: "0", count: 64))"]).status == 403)
        #expect(try server.request("GET", "/api/documents", headers: ["Cookie": server.cookie, "Host": "attacker.example:\(server.port)"]).status == 403)
        #expect(try server.request("GET", "/api/documents", headers: ["Cookie": server.cookie, "Host": "localhost:\(server.port)"]).status == 200)
        let redirect = try server.request("GET", "/?token=\(server.token)")
        #expect(redirect.status == 303 && redirect.headers["location"] == "/")
        #expect(redirect.headers["set-cookie"] == "\(server.cookie); Path=/; HttpOnly; SameSite=Strict")
        let page = try server.get("/")
        #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        let body = try JSONSerialization.data(withJSONObject: ["document": "note.txt", "action": "latest"])
        let json = ["Cookie": server.cookie, "Content-Type": "application/json"]
        let crossOrigin = try server.request(
            "POST", "/api/resolve", headers: json.merging(["Origin": "http://attacker.example", "X-Concord-CSRF": server.csrf]) { $1 }, body: body)
        #expect(crossOrigin.status == 403)
        let noCSRF = try server.request("POST", "/api/resolve", headers: json.merging(["Origin": "http://127.0.0.1:\(server.port)"]) { $1 }, body: body)
        #expect(noCSRF.status == 403)
        #expect(try await conflict.phone.conflicts().count == 1, "nothing was resolved")
    }
}
