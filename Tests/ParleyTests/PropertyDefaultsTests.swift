import GstKit
import GstParley
import Parley
import Testing

/// What gst-inspect-1.0 advertises as a property's default is what a fresh
/// element holds: the settings are built from the same DEFAULT_* constants.
@Suite struct PropertyDefaultsTests {
    @Test(arguments: parleyElements.map { $0.metadata.factoryName })
    func everyAdvertisedDefaultIsWhatAFreshElementHolds(factoryName: String) throws {
        Parley.initialize()
        let type = try #require(parleyElements.first { $0.metadata.factoryName == factoryName })
        let element = try #require(ElementFactory(named: factoryName)?.makeElement())
        for spec in type.properties where spec.flags.contains(.writable) {
            let advertised = try #require(element.paramInfo(spec.name), "\(factoryName).\(spec.name) is registered")
            #expect(element.property(spec.name) == spec.defaultValue,
                    "\(factoryName).\(spec.name): a fresh element holds \(String(describing: element.property(spec.name))), gst-inspect says \(advertised.defaultValue)")
        }
    }

    @Test func enumPropertiesShowTheirNicks() throws {
        Parley.initialize()
        let element = try #require(ElementFactory(named: "cloudstt")?.makeElement())
        #expect(element.paramInfo("queue-policy")?.range == .oneOf(["block", "drop-oldest", "drop-newest"]))
        #expect(element.paramInfo("response-format")?.range == .oneOf(["json", "verbose_json", "text"]))
        #expect(element.paramInfo("max-in-flight")?.defaultValue == "\(1)")
        try element.setProperty("upload-format", fromString: "flac")
        #expect(element.property("upload-format") == .enumeration(1))
    }
}
