import GstKit
